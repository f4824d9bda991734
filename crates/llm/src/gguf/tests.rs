use super::*;

/// Builds a GGUF header in memory, little-endian as the format is.
struct Gguf(Vec<u8>);

impl Gguf {
    /// Magic, `version`, 3 tensors and `entries` metadata entries.
    fn new(version: u32, entries: u64) -> Self {
        Self(b"GGUF".to_vec()).u32(version).u64(3).u64(entries)
    }

    fn bytes(mut self, bytes: &[u8]) -> Self {
        self.0.extend_from_slice(bytes);
        self
    }

    fn u32(self, n: u32) -> Self {
        self.bytes(&n.to_le_bytes())
    }

    fn u64(self, n: u64) -> Self {
        self.bytes(&n.to_le_bytes())
    }

    fn string(self, text: &str) -> Self {
        self.u64(text.len() as u64).bytes(text.as_bytes())
    }

    /// A key, a value type and the value's bytes.
    fn kv(self, key: &str, value_type: u32, value: &[u8]) -> Self {
        self.string(key).u32(value_type).bytes(value)
    }

    fn kv_str(self, key: &str, value: &str) -> Self {
        self.string(key).u32(8).string(value)
    }

    fn kv_u32(self, key: &str, value: u32) -> Self {
        self.kv(key, 4, &value.to_le_bytes())
    }

    /// The start of an array value: its element type and count.
    fn array(self, key: &str, element_type: u32, len: u64) -> Self {
        self.string(key).u32(9).u32(element_type).u64(len)
    }

    /// The bytes, cut `n` short.
    fn cut(mut self, n: usize) -> Vec<u8> {
        self.0.truncate(self.0.len() - n);
        self.0
    }
}

fn parse(bytes: &[u8]) -> GgufHeader {
    parse_gguf_header(bytes).unwrap()
}

/// The message a user sees for these bytes as the file /models/m.gguf.
fn error(bytes: &[u8]) -> String {
    parse_gguf_header(bytes)
        .unwrap_err()
        .for_file(Path::new("/models/m.gguf"))
        .to_string()
}

/// One entry of every value type, a string array and a nested array.
fn every_type() -> Gguf {
    Gguf::new(3, 15)
        .kv("a.u8", 0, &[200])
        .kv("a.i8", 1, &(-5i8).to_le_bytes())
        .kv("a.u16", 2, &60_000u16.to_le_bytes())
        .kv("a.i16", 3, &(-30_000i16).to_le_bytes())
        .kv_u32("a.u32", 4_000_000_000)
        .kv("a.i32", 5, &(-2_000_000_000i32).to_le_bytes())
        .kv("a.f32", 6, &1.5f32.to_le_bytes())
        .kv("a.bool", 7, &[1])
        .kv_str("a.string", "héllo")
        .array("a.strings", 8, 3)
        .string("<s>")
        .string("")
        .string("</s>")
        // Two inner arrays of u16, then one of u8.
        .array("a.nested", 9, 3)
        .u32(2)
        .u64(2)
        .bytes(&[1, 0, 2, 0])
        .u32(2)
        .u64(0)
        .u32(0)
        .u64(3)
        .bytes(&[7, 8, 9])
        .kv("a.u64", 10, &u64::MAX.to_le_bytes())
        .kv("a.i64", 11, &i64::MIN.to_le_bytes())
        .kv("a.f64", 12, &(-0.25f64).to_le_bytes())
        .kv_u32("a.last", 7)
        // Tensor infos follow the metadata; they are not read.
        .bytes(b"tensor infos and weights")
}

#[test]
fn every_value_type_is_read_and_arrays_are_skipped() {
    let expected = [
        ("a.u8", GgufValue::U8(200)),
        ("a.i8", GgufValue::I8(-5)),
        ("a.u16", GgufValue::U16(60_000)),
        ("a.i16", GgufValue::I16(-30_000)),
        ("a.u32", GgufValue::U32(4_000_000_000)),
        ("a.i32", GgufValue::I32(-2_000_000_000)),
        ("a.f32", GgufValue::F32(1.5)),
        ("a.bool", GgufValue::Bool(true)),
        ("a.string", GgufValue::String("héllo".into())),
        (
            "a.strings",
            GgufValue::Array {
                element_type: 8,
                len: 3,
            },
        ),
        (
            "a.nested",
            GgufValue::Array {
                element_type: 9,
                len: 3,
            },
        ),
        ("a.u64", GgufValue::U64(u64::MAX)),
        ("a.i64", GgufValue::I64(i64::MIN)),
        ("a.f64", GgufValue::F64(-0.25)),
        ("a.last", GgufValue::U32(7)),
    ];
    assert_eq!(
        parse(&every_type().0),
        GgufHeader {
            version: 3,
            tensor_count: 3,
            metadata: expected
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        }
    );
}

/// A header shaped like a real model's, with a 50,000-entry vocabulary
/// that is skipped on the way to the chat template after it.
fn model_header() -> Gguf {
    let mut header = Gguf::new(3, 8)
        .kv_str("general.architecture", "qwen2")
        .kv_str("general.name", "Qwen2.5 0.5B Instruct")
        .kv_u32("general.file_type", 15)
        .kv_u32("qwen2.context_length", 32_768)
        .kv_u32("llama.context_length", 4096)
        .array("tokenizer.ggml.tokens", 8, 50_000);
    for i in 0..50_000 {
        header = header.string(&format!("tok{i}"));
    }
    header
        .array("tokenizer.ggml.scores", 6, 50_000)
        .bytes(&[0; 200_000])
        .kv_str(
            "tokenizer.chat_template",
            "{% for message in messages %}{{ message }}{% endfor %}",
        )
}

#[test]
fn info_names_the_model_its_quantisation_and_context() {
    assert_eq!(
        model_header().info_of(1234),
        GgufInfo {
            name: Some("Qwen2.5 0.5B Instruct".into()),
            architecture: Some("qwen2".into()),
            file_size: 1234,
            quantisation: Some("Q4_K_M".into()),
            context_length: Some(32_768),
            chat_template: Some("{% for message in messages %}{{ message }}{% endfor %}".into()),
            is_projector: false,
        }
    );
}

impl Gguf {
    fn info_of(self, file_size: u64) -> GgufInfo {
        parse(&self.0).info(file_size)
    }
}

#[test]
fn a_header_without_the_keys_gives_none() {
    let info = Gguf::new(2, 1)
        .kv("general.file_type", 10, &99u64.to_le_bytes())
        .info_of(24);
    assert_eq!(
        info,
        GgufInfo {
            name: None,
            architecture: None,
            file_size: 24,
            quantisation: Some("type 99".into()),
            context_length: None,
            chat_template: None,
            is_projector: false,
        }
    );
}

#[test]
fn projectors_are_recognised() {
    let by_architecture = Gguf::new(3, 1)
        .kv_str("general.architecture", "clip")
        .info_of(0);
    assert!(by_architecture.is_projector);
    let by_key = Gguf::new(3, 2)
        .kv_str("general.architecture", "llava")
        .kv("clip.has_vision_encoder", 7, &[1])
        .info_of(0);
    assert!(by_key.is_projector);
}

#[test]
fn quantisation_names_follow_llama_cpp() {
    let names: Vec<String> = [0, 1, 2, 3, 7, 15, 18, 30, 32, 36, 37, 4, 99]
        .into_iter()
        .map(quantisation_name)
        .collect();
    assert_eq!(
        names,
        [
            "F32", "F16", "Q4_0", "Q4_1", "Q8_0", "Q4_K_M", "Q6_K", "IQ4_XS", "BF16", "TQ1_0",
            "TQ2_0", "type 4", "type 99"
        ]
    );
}

#[test]
fn a_file_that_is_not_gguf_is_named() {
    let expected = "/models/m.gguf is not a GGUF model file (it does not start with GGUF)";
    assert_eq!(error(b"PK\x03\x04 a zip file"), expected);
    assert_eq!(error(b"GG"), expected);
    assert_eq!(error(b""), expected);
}

#[test]
fn version_1_is_unsupported() {
    assert_eq!(
        error(&Gguf::new(1, 0).0),
        "/models/m.gguf is a GGUF version 1 file; Sift reads versions 2 and 3 (download the model \
         again in a current GGUF conversion)"
    );
}

#[test]
fn big_endian_files_are_named() {
    assert_eq!(
        error(&Gguf::new(3u32.swap_bytes(), 0).0),
        "/models/m.gguf is a big-endian GGUF file, made for IBM mainframes; Sift reads \
         little-endian GGUF files, the usual kind"
    );
}

#[test]
fn truncated_in_the_fixed_header() {
    assert_eq!(
        error(&Gguf::new(3, 0).cut(3)),
        "/models/m.gguf is damaged or incomplete: the file ends inside its header"
    );
}

#[test]
fn truncated_inside_a_key() {
    let header = Gguf::new(3, 2)
        .kv_u32("general.file_type", 3)
        .string("general.name");
    assert_eq!(
        error(&header.cut(4)),
        "/models/m.gguf is damaged or incomplete: the header ends inside metadata key 1"
    );
}

#[test]
fn truncated_inside_a_value() {
    let header = Gguf::new(3, 2)
        .kv_u32("general.file_type", 3)
        .kv_str("general.name", "Smol");
    assert_eq!(
        error(&header.cut(1)),
        "/models/m.gguf is damaged or incomplete: the header ends inside the value of metadata \
         key 1 (general.name)"
    );
}

#[test]
fn truncated_inside_an_array() {
    let header = Gguf::new(3, 1)
        .array("tokenizer.ggml.tokens", 8, 50_000)
        .string("<s>");
    assert_eq!(
        error(&header.0),
        "/models/m.gguf is damaged or incomplete: the header ends inside the value of metadata \
         key 0 (tokenizer.ggml.tokens)"
    );
}

#[test]
fn more_metadata_entries_than_header_bytes() {
    // The count is believed only as far as the bytes go.
    assert_eq!(
        error(&Gguf::new(3, 900_000).0),
        "/models/m.gguf is damaged or incomplete: the header ends inside metadata key 0"
    );
}

#[test]
fn a_huge_string_length_is_refused_before_reading() {
    let header = Gguf::new(3, 1)
        .string("general.name")
        .u32(8)
        .u64(1 << 32)
        .bytes(b"Smol");
    assert_eq!(
        error(&header.0),
        "/models/m.gguf is damaged or incomplete: in the value of metadata key 0 (general.name), \
         a string of 4294967296 bytes is longer than the 1 MiB limit"
    );
}

#[test]
fn a_huge_string_in_an_array_is_refused() {
    let header = Gguf::new(3, 1)
        .array("tokenizer.ggml.tokens", 8, 2)
        .string("<s>")
        .u64(u64::MAX);
    assert_eq!(
        error(&header.0),
        "/models/m.gguf is damaged or incomplete: in the value of metadata key 0 \
         (tokenizer.ggml.tokens), a string of 18446744073709551615 bytes is longer than the 1 MiB \
         limit"
    );
}

#[test]
fn a_huge_key_length_is_refused() {
    let header = Gguf::new(3, 1).u64(1 << 40).bytes(b"general.name");
    assert_eq!(
        error(&header.0),
        "/models/m.gguf is damaged or incomplete: metadata key 0 has a name of 1099511627776 \
         bytes, longer than the 64 KiB limit"
    );
}

#[test]
fn a_huge_metadata_count_is_refused() {
    assert_eq!(
        error(&Gguf::new(3, u64::MAX).0),
        "/models/m.gguf is damaged or incomplete: the header claims 18446744073709551615 \
         metadata entries, more than the limit of 1000000"
    );
}

#[test]
fn a_huge_fixed_size_array_is_refused() {
    let header = Gguf::new(3, 1).array("tokenizer.ggml.scores", 6, u64::MAX / 2);
    assert_eq!(
        error(&header.0),
        "/models/m.gguf is damaged or incomplete: in the value of metadata key 0 \
         (tokenizer.ggml.scores), an array of 9223372036854775807 elements of 4 bytes is larger \
         than any file"
    );
    // One that fits in a u64 but not in the file ends with the file.
    let header = Gguf::new(3, 1)
        .array("tokenizer.ggml.scores", 6, 1 << 40)
        .bytes(&[0; 64]);
    assert_eq!(
        error(&header.0),
        "/models/m.gguf is damaged or incomplete: the header ends inside the value of metadata \
         key 0 (tokenizer.ggml.scores)"
    );
}

#[test]
fn an_unknown_value_type_is_refused() {
    let header = Gguf::new(3, 2)
        .kv_u32("general.file_type", 3)
        .kv("general.name", 13, b"Smol");
    assert_eq!(
        error(&header.0),
        "/models/m.gguf is damaged or incomplete: in the value of metadata key 1 (general.name), \
         the value type 13 is not a GGUF type (those are 0 to 12)"
    );
    let header = Gguf::new(3, 1).array("tokenizer.ggml.tokens", 4_000_000, 0);
    assert_eq!(
        error(&header.0),
        "/models/m.gguf is damaged or incomplete: in the value of metadata key 0 \
         (tokenizer.ggml.tokens), the array element type 4000000 is not a GGUF type (those are 0 \
         to 12)"
    );
}

#[test]
fn arrays_nested_too_deep_are_refused() {
    // Each level is 12 bytes of input; unchecked, a few megabytes of them
    // would overflow the stack.
    let mut header = Gguf::new(3, 1).array("a.deep", 9, 1);
    for _ in 0..100 {
        header = header.u32(9).u64(1);
    }
    assert_eq!(
        error(&header.0),
        "/models/m.gguf is damaged or incomplete: in the value of metadata key 0 (a.deep), arrays \
         are nested more than 8 deep"
    );
}

#[test]
fn a_duplicate_key_is_refused() {
    let header = Gguf::new(3, 2)
        .kv_str("general.name", "A")
        .kv_str("general.name", "B");
    assert_eq!(
        error(&header.0),
        "/models/m.gguf is damaged or incomplete: metadata key 1 (general.name) appears twice"
    );
}

#[test]
fn invalid_utf8_is_replaced() {
    let header = Gguf::new(3, 1)
        .string("general.name")
        .u32(8)
        .u64(3)
        .bytes(b"a\xffb");
    assert_eq!(
        parse(&header.0).get("general.name"),
        Some(&GgufValue::String("a\u{fffd}b".into()))
    );
}

#[test]
fn every_truncation_is_refused() {
    let bytes = every_type().0;
    // The last 24 bytes are past the header.
    let header_len = bytes.len() - 24;
    assert!(parse_gguf_header(&bytes[..header_len]).is_ok());
    for len in 0..header_len {
        assert!(parse_gguf_header(&bytes[..len]).is_err(), "{len} bytes");
    }
}

#[test]
fn damaged_bytes_never_panic() {
    // A small stand-in for the fuzz target, run with every test.
    let bytes = every_type().0;
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..5_000 {
        let mut damaged = bytes.clone();
        for _ in 0..rng.usize(1..4) {
            let at = rng.usize(..damaged.len());
            damaged[at] = if rng.bool() { rng.u8(..) } else { 0xff };
        }
        damaged.truncate(rng.usize(..=damaged.len()));
        if let Ok(header) = parse_gguf_header(damaged.as_slice()) {
            header.info(0);
        }
    }
}

#[test]
fn a_file_is_read_with_its_size() {
    let path = std::env::temp_dir().join(format!("sift-gguf-test-{}.gguf", std::process::id()));
    let bytes = model_header().bytes(&[0; 4096]).0;
    std::fs::write(&path, &bytes).unwrap();
    let info = read_gguf_info(&path);
    std::fs::remove_file(&path).unwrap();
    let info = info.unwrap();
    assert_eq!(info.file_size, bytes.len() as u64);
    assert_eq!(info.quantisation.as_deref(), Some("Q4_K_M"));
}

#[test]
fn a_missing_file_is_named() {
    assert_eq!(
        read_gguf_info(Path::new("/nonexistent/m.gguf"))
            .unwrap_err()
            .to_string(),
        "cannot read /nonexistent/m.gguf: No such file or directory (os error 2)"
    );
}

#[test]
#[ignore = "needs the local model installed by scripts/setup.sh"]
fn the_local_smollm2_model() {
    let path = std::env::var_os("SIFT_LOCAL_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME").expect("HOME is set");
            Path::new(&home).join(".local/share/sift/models/SmolLM2-135M-Instruct.Q4_1.gguf")
        });
    let info = read_gguf_info(&path).unwrap();
    assert_eq!(
        info.name.as_deref(),
        Some("Smollm2 135M 8k Lc100K Mix1 Ep2")
    );
    assert_eq!(info.architecture.as_deref(), Some("llama"));
    assert_eq!(info.file_size, 98_362_432);
    assert_eq!(info.quantisation.as_deref(), Some("Q4_1"));
    assert_eq!(info.context_length, Some(8192));
    assert!(!info.is_projector);
    let template = info.chat_template.expect("a chat template");
    assert!(
        template.starts_with(
            "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
        ),
        "{template}"
    );
}
