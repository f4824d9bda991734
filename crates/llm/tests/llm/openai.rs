use serde_json::json;
use sift_llm::{
    ChatRequest, Image, Message, Part, Role, StopReason, StreamDelta, ToolCall, ToolChoice,
    ToolSpec, Usage,
};
use sift_scripted_server::{Reply, Script};

use crate::{Deltas, KEY, openai_client, server};

#[tokio::test]
async fn plain_completion_sends_exactly_the_prompt() {
    let server = server(Script::new().with("m", [Reply::text("Hello there").usage(7, 3)])).await;
    let client = openai_client(&server);
    let response = client
        .complete(&ChatRequest::new("m", vec![Message::user("hi")]))
        .await
        .unwrap();

    assert_eq!(response.message, Message::assistant("Hello there"));
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 7,
            output_tokens: 3
        }
    );
    assert_eq!(response.stop, StopReason::End);
    assert_eq!(response.model, "m");

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(requests[0].header("content-type"), Some("application/json"));
    assert_eq!(
        requests[0].body,
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    );
}

#[tokio::test]
async fn system_message_and_sampling_fields() {
    let server = server(Script::new().with("m", [Reply::text("ok")])).await;
    let client = openai_client(&server);
    let mut req = ChatRequest::new(
        "m",
        vec![Message::system("Be concise"), Message::user("hello")],
    );
    req.temperature = Some(0.25);
    req.max_tokens = Some(64);
    req.top_p = Some(0.5);
    client.complete(&req).await.unwrap();

    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "m",
            "messages": [{"role": "system", "content": "Be concise"}, {"role": "user", "content": "hello"}],
            "temperature": 0.25,
            "max_tokens": 64,
            "top_p": 0.5,
        })
    );
}

#[tokio::test]
async fn streamed_answer_arrives_in_pieces_and_whole() {
    // One character a chunk splits the multi-byte characters' events apart.
    let text = "Grüße, 日本 — done";
    let server =
        server(Script::new().with("m", [Reply::text(text).chunk_chars(1).usage(5, 9)])).await;
    let client = openai_client(&server);
    let deltas = Deltas::default();
    let response = client
        .stream(
            &ChatRequest::new("m", vec![Message::user("hi")]),
            &mut deltas.sink(),
        )
        .await
        .unwrap();

    assert_eq!(deltas.text(), text);
    assert_eq!(response.message.text_content(), text);
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 5,
            output_tokens: 9
        }
    );
    assert!(deltas.all().contains(&StreamDelta::Usage(Usage {
        input_tokens: 5,
        output_tokens: 9
    })));
    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "m",
            "messages": [{"role": "user", "content": "hi"}],
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
}

fn weather_tool() -> ToolSpec {
    ToolSpec {
        name: "weather".into(),
        description: "The weather in a city".into(),
        parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    }
}

#[tokio::test]
async fn tools_are_offered_and_calls_parsed() {
    let reply = Reply::tool_call("weather", json!({"city": "Oslo"}))
        .and_tool_call("weather", json!({"city": "Rome"}));
    let server = server(Script::new().with("m", [reply])).await;
    let client = openai_client(&server);
    let mut req = ChatRequest::new("m", vec![Message::user("weather?")]);
    req.tools = vec![weather_tool()];
    req.tool_choice = Some(ToolChoice::Auto);
    let response = client.complete(&req).await.unwrap();

    assert_eq!(response.stop, StopReason::ToolCalls);
    let calls: Vec<&ToolCall> = response.message.tool_calls().collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[0].id.as_str(), calls[0].name.as_str()),
        ("call_1", "weather")
    );
    assert_eq!(
        calls[0].parsed_arguments().unwrap(),
        json!({"city": "Oslo"})
    );
    assert_eq!(
        calls[1].parsed_arguments().unwrap(),
        json!({"city": "Rome"})
    );
    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "m",
            "messages": [{"role": "user", "content": "weather?"}],
            "tools": [{"type": "function", "function": {
                "name": "weather",
                "description": "The weather in a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            }}],
            "tool_choice": "auto",
        })
    );
}

#[tokio::test]
async fn streamed_tool_calls_are_assembled_by_index() {
    let reply = Reply::tool_call("weather", json!({"city": "Oslo"}))
        .and_tool_call("weather", json!({"city": "São Paulo"}))
        .chunk_chars(3);
    let server = server(Script::new().with("m", [reply])).await;
    let client = openai_client(&server);
    let mut req = ChatRequest::new("m", vec![Message::user("weather?")]);
    req.tools = vec![weather_tool()];
    req.tool_choice = Some(ToolChoice::Tool("weather".into()));
    let deltas = Deltas::default();
    let response = client.stream(&req, &mut deltas.sink()).await.unwrap();

    let calls: Vec<&ToolCall> = response.message.tool_calls().collect();
    assert_eq!(calls[0].arguments, r#"{"city":"Oslo"}"#);
    assert_eq!(calls[1].arguments, r#"{"city":"São Paulo"}"#);
    assert_eq!(response.stop, StopReason::ToolCalls);
    let started: Vec<StreamDelta> = deltas
        .all()
        .into_iter()
        .filter(|d| matches!(d, StreamDelta::ToolCallStarted { .. }))
        .collect();
    assert_eq!(
        started,
        vec![
            StreamDelta::ToolCallStarted {
                index: 0,
                id: "call_1".into(),
                name: "weather".into()
            },
            StreamDelta::ToolCallStarted {
                index: 1,
                id: "call_2".into(),
                name: "weather".into()
            },
        ]
    );
    assert_eq!(
        server.requests()[0].body["tool_choice"],
        json!({"type": "function", "function": {"name": "weather"}})
    );
}

#[tokio::test]
async fn tool_history_and_results_are_encoded() {
    let server = server(Script::new().with("m", [Reply::text("It is sunny.")])).await;
    let client = openai_client(&server);
    let call = ToolCall::new("call_9", "weather", &json!({"city": "Oslo"}));
    let req = ChatRequest::new(
        "m",
        vec![
            Message::user("weather?"),
            Message {
                role: Role::Assistant,
                parts: vec![Part::ToolCall(call)],
            },
            Message::tool_result("call_9", "sunny, 21 C", false),
        ],
    );
    client.complete(&req).await.unwrap();
    assert_eq!(
        server.requests()[0].body["messages"],
        json!([
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_9", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_9", "content": "sunny, 21 C"},
        ])
    );
}

#[tokio::test]
async fn images_go_as_data_urls_after_the_text() {
    let server = server(Script::new().with("m", [Reply::text("a receipt")])).await;
    let client = openai_client(&server);
    let message = Message {
        role: Role::User,
        parts: vec![
            Part::Text {
                text: "[Image 1 is receipt.png.] What is this?".into(),
            },
            Part::Image(Image {
                mime: "image/png".into(),
                data: vec![0x89, b'P', b'N', b'G'],
            }),
        ],
    };
    client
        .complete(&ChatRequest::new("m", vec![message]))
        .await
        .unwrap();
    assert_eq!(
        server.requests()[0].body["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "[Image 1 is receipt.png.] What is this?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
        ]}])
    );
}

#[tokio::test]
async fn length_stop_is_reported() {
    let server = server(Script::new().with(
        "m",
        [Reply::text("cut sh").finish(sift_scripted_server::Finish::Length)],
    ))
    .await;
    let response = openai_client(&server)
        .complete(&ChatRequest::new("m", vec![Message::user("go")]))
        .await
        .unwrap();
    assert_eq!(response.stop, StopReason::MaxTokens);
}

#[tokio::test]
async fn invalid_tool_arguments_are_kept_as_sent() {
    let server =
        server(Script::new().with("m", [Reply::raw_tool_call("weather", "{\"city\": Oslo")])).await;
    let response = openai_client(&server)
        .complete(&ChatRequest::new("m", vec![Message::user("go")]))
        .await
        .unwrap();
    let call = response.message.tool_calls().next().unwrap();
    assert_eq!(call.arguments, "{\"city\": Oslo");
    assert!(call.parsed_arguments().is_err());
}

#[tokio::test]
async fn llama_cpp_gets_empty_content_beside_tool_calls() {
    let server = server(Script::new().with("m", [Reply::text("ok")])).await;
    let mut config =
        sift_llm::ClientConfig::new(sift_llm::ProviderKind::OpenAi, server.openai_base_url());
    config.flavor = sift_llm::ServerFlavor::LlamaCpp;
    let client = sift_llm::Client::new(config).unwrap();
    let req = ChatRequest::new(
        "m",
        vec![
            Message::user("weather?"),
            Message {
                role: Role::Assistant,
                parts: vec![Part::ToolCall(ToolCall::new("c1", "weather", &json!({})))],
            },
            Message::tool_result("c1", "sunny", false),
        ],
    );
    client.complete(&req).await.unwrap();
    assert_eq!(
        server.requests()[0].body["messages"][1]["content"],
        json!("")
    );
}

/// An answer held to a schema gets llama.cpp's DRY sampler against
/// verbatim loops; a server of another kind, which may refuse an unknown
/// field, gets the same request without it, and a free reply gets neither.
#[tokio::test]
async fn only_llama_cpp_gets_the_dry_sampler_and_only_on_a_held_answer() {
    let server = server(Script::new().with(
        "m",
        [Reply::text("{}"), Reply::text("{}"), Reply::text("ok")],
    ))
    .await;
    let client_of = |flavor| {
        let mut config =
            sift_llm::ClientConfig::new(sift_llm::ProviderKind::OpenAi, server.openai_base_url());
        config.flavor = flavor;
        sift_llm::Client::new(config).unwrap()
    };
    let mut held = ChatRequest::new("m", vec![Message::user("the invoice")]);
    held.response_format = Some(sift_llm::JsonAnswerFormat {
        name: "submit_output".into(),
        schema: json!({"type": "object"}),
    });
    let llama = client_of(sift_llm::ServerFlavor::LlamaCpp);
    llama.complete(&held).await.unwrap();
    client_of(sift_llm::ServerFlavor::Generic)
        .complete(&held)
        .await
        .unwrap();
    llama
        .complete(&ChatRequest::new("m", vec![Message::user("hello")]))
        .await
        .unwrap();

    let requests = server.requests();
    let format = json!({"type": "json_schema", "json_schema": {
        "name": "submit_output", "schema": {"type": "object"},
    }});
    let messages = json!([{"role": "user", "content": "the invoice"}]);
    assert_eq!(
        requests[0].body,
        json!({"model": "m", "messages": messages, "response_format": format, "dry_multiplier": 0.8})
    );
    assert_eq!(
        requests[1].body,
        json!({"model": "m", "messages": messages, "response_format": format})
    );
    assert_eq!(
        requests[2].body,
        json!({"model": "m", "messages": [{"role": "user", "content": "hello"}]})
    );
}
