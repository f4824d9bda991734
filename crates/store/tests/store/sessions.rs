//! Sessions and reading their messages.

use std::time::Duration;

use sift_store::{NewSession, SessionUpdate, StoreError, TurnWrite};

use crate::{assistant, fresh, session, user};

#[test]
fn sessions_are_created_listed_most_recent_first_and_updated() {
    let (_dir, store) = fresh("sessions");
    let before = sift_store::now_ms();
    let a = store
        .create_session(NewSession {
            title: "Invoices".into(),
            system_prompt: Some("Extract invoices.".into()),
            model_choice: Some("auto".into()),
        })
        .unwrap();
    assert!(a.id.starts_with("ses_") && a.id.len() == 30, "{}", a.id);
    assert_eq!(a.title, "Invoices");
    assert_eq!(a.system_prompt.as_deref(), Some("Extract invoices."));
    assert_eq!(a.model_choice.as_deref(), Some("auto"));
    assert!(a.created_at >= before && a.created_at == a.updated_at);
    let b = session(&store);
    assert_eq!(b.title, "");
    assert_eq!(
        (b.system_prompt.clone(), b.model_choice.clone()),
        (None, None)
    );
    let c = session(&store);
    assert_eq!(store.get_session(&a.id).unwrap(), Some(a.clone()));
    assert_eq!(store.get_session("ses_missing").unwrap(), None);

    let ids = || -> Vec<String> {
        store
            .list_sessions()
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect()
    };
    assert_eq!(ids(), vec![c.id.clone(), b.id.clone(), a.id.clone()]);

    std::thread::sleep(Duration::from_millis(5));
    let commit = store
        .commit_turn(TurnWrite {
            messages: vec![user("hi")],
            ..TurnWrite::new(&a.id)
        })
        .unwrap();
    assert!(commit.session.updated_at > a.updated_at);
    assert_eq!(commit.session.created_at, a.created_at);
    assert_eq!(ids(), vec![a.id.clone(), c.id.clone(), b.id.clone()]);

    std::thread::sleep(Duration::from_millis(5));
    let renamed = store
        .update_session(
            &b.id,
            SessionUpdate {
                title: Some("Renamed".into()),
                model_choice: Some(Some("gpt-oss".into())),
                ..SessionUpdate::default()
            },
        )
        .unwrap();
    assert_eq!(renamed.title, "Renamed");
    assert_eq!(renamed.model_choice.as_deref(), Some("gpt-oss"));
    assert_eq!(renamed.system_prompt, None);
    assert_eq!(store.get_session(&b.id).unwrap(), Some(renamed.clone()));
    assert_eq!(ids(), vec![b.id.clone(), a.id.clone(), c.id.clone()]);

    let cleared = store
        .update_session(
            &a.id,
            SessionUpdate {
                system_prompt: Some(None),
                ..SessionUpdate::default()
            },
        )
        .unwrap();
    assert_eq!(cleared.system_prompt, None);
    assert_eq!(cleared.title, "Invoices");
    assert_eq!(cleared.model_choice.as_deref(), Some("auto"));

    let err = store
        .update_session("ses_missing", SessionUpdate::default())
        .unwrap_err();
    assert!(matches!(err, StoreError::SessionNotFound(_)), "{err:?}");
}

#[test]
fn messages_are_read_whole_or_by_page() {
    let (_dir, store) = fresh("pages");
    let s = session(&store);
    for i in 0..5 {
        store
            .commit_turn(TurnWrite {
                messages: vec![user(&format!("q{i}")), assistant(&format!("a{i}"))],
                ..TurnWrite::new(&s.id)
            })
            .unwrap();
    }
    let all = store.messages(&s.id).unwrap();
    assert_eq!(all.len(), 10);
    let mut paged = Vec::new();
    let mut after = 0;
    loop {
        let page = store.messages_page(&s.id, after, 3).unwrap();
        if page.is_empty() {
            break;
        }
        assert!(page.len() <= 3);
        after = page[page.len() - 1].seq;
        paged.extend(page);
    }
    assert_eq!(paged, all);
    assert_eq!(
        store.messages_page(&s.id, 8, 100).unwrap(),
        all[8..].to_vec()
    );
    assert_eq!(store.messages_page(&s.id, 0, 0).unwrap(), vec![]);
    assert_eq!(
        store.messages_page(&s.id, -5, 1).unwrap(),
        all[..1].to_vec()
    );

    let empty = session(&store);
    assert_eq!(store.messages(&empty.id).unwrap(), vec![]);
    assert_eq!(store.last_seq(&empty.id).unwrap(), 0);
    let err = store.messages("ses_missing").unwrap_err();
    assert!(matches!(&err, StoreError::SessionNotFound(id) if id == "ses_missing"));
    let err = store.messages_page("ses_missing", 0, 10).unwrap_err();
    assert!(matches!(err, StoreError::SessionNotFound(_)));
}

#[test]
fn an_in_memory_store_works_for_engine_tests() {
    let store = sift_store::Store::open_in_memory().unwrap();
    let s = session(&store);
    store
        .commit_turn(TurnWrite {
            messages: vec![user("hi")],
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    assert_eq!(store.messages(&s.id).unwrap().len(), 1);
    assert_eq!(store.path(), std::path::Path::new(":memory:"));
}
