//! Expert review end to end (issue 18 §3): a weak answer escalated to an expert, the run
//! waiting across a restart, a reviewer profile's answer verified and delivered, the semantic
//! cache serving it, a request exported as a file and the colleague's reply imported, a
//! withdrawal, and every bad reply refused with nothing stored.

use policypal::ErrorKind;
use policypal::agent::Agent;
use policypal::agent::review::{ExpertCitation, ExpertReply, ReviewFile};
use policypal::agent::types::{AskRequest, Event, Status};
use policypal::store::ReviewStatus;

use crate::common::{TestLib, ask_ok, assert_quotes_on_pages, ingest_fixture};

const CLOUD: &str = "Which cloud providers are approved for storing customer data?";
const DRESS: &str = "What is the dress code for branch staff?";
const BUDGET: &str = "Who approves the annual marketing budget?";
const QUOTE: &str = "a licensed bank must hold a capital\nconservation buffer of 2.5 per cent";

fn ask(text: &str) -> AskRequest {
    AskRequest {
        text: text.into(),
        ..AskRequest::default()
    }
}

fn quiet() -> impl Fn(&Event) + Send + Sync {
    |_: &Event| {}
}

/// Asks `text` (which the library cannot support) and escalates the weak answer; the thread.
async fn escalate(agent: &Agent<'_>, p: &policypal::store::Profile, text: &str) -> String {
    let turn = ask_ok(agent, p, ask(text)).await;
    assert_eq!(turn.answer.status, Status::Refused, "{}", turn.answer.text);
    assert!(
        turn.answer.options.iter().any(|o| o.id == "expert"),
        "{:?}",
        turn.answer.options
    );
    let waiting = agent
        .resume(p, &turn.thread_id, Some("expert"), &quiet())
        .await
        .unwrap();
    assert_eq!(waiting.answer.status, Status::WaitingForExpert);
    assert_eq!(
        waiting.message_id, turn.message_id,
        "the same message waits"
    );
    assert!(
        waiting.answer.text.contains("Waiting for an expert"),
        "{}",
        waiting.answer.text
    );
    assert_eq!(waiting.answer.options[0].id, "withdraw");
    turn.thread_id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_weak_answer_goes_to_an_expert_whose_verified_answer_the_thread_and_the_cache_keep() {
    let t = TestLib::new().await;
    let asker = t.profile("asker").await;
    let doc = ingest_fixture(&t.lib, &asker, "capital-2024.pdf").await;
    let expert = t.profile("expert").await;
    t.lib.store().set_reviewer(&expert.id, true).await.unwrap();
    let outsider = t.profile("outsider").await;
    let agent = Agent::new(&t.lib);
    let thread = escalate(&agent, &asker, CLOUD).await;

    // The inbox: the asker sees its request, the reviewer every profile's, nobody else any.
    let mine = agent.reviews(&asker, false).await.unwrap();
    assert_eq!(mine.len(), 1);
    assert_eq!(
        (mine[0].question.as_str(), mine[0].asked_by.as_str()),
        (CLOUD, "asker")
    );
    assert!(
        !mine[0].evidence.is_empty(),
        "candidate evidence travels with the request"
    );
    let expert = t.lib.profile(&expert.id).await.unwrap();
    assert_eq!(agent.reviews(&expert, false).await.unwrap().len(), 1);
    assert!(agent.reviews(&outsider, false).await.unwrap().is_empty());
    assert_eq!(
        agent
            .review_file(&outsider, &mine[0].id)
            .await
            .unwrap_err()
            .kind(),
        ErrorKind::NotFound
    );
    let id = mine[0].id.clone();

    // The wait survives a restart.
    let t = t.reopen().await;
    let agent = Agent::new(&t.lib);
    let view = agent.thread(&asker, &thread).await.unwrap();
    let last = view.messages.last().unwrap();
    assert!(
        last.content.contains("Waiting for an expert"),
        "{}",
        last.content
    );

    // A profile that is not a reviewer cannot answer; a quote that is not on its page refuses
    // the whole reply; nothing changes either way.
    let reply = |quote: &str, page: u32| {
        ExpertReply {
        reviewer: String::new(),
        answer: "None is approved by these guidelines; outsourcing is decided case by case. The capital buffer is unaffected.".into(),
        citations: vec![ExpertCitation {
            document_id: doc.id.clone(),
            page,
            quote: quote.into(),
        }],
    }
    };
    let err = agent
        .answer_review(&outsider, &id, &reply(QUOTE, 1), &quiet())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    let err = agent
        .answer_review(&expert, &id, &reply("a buffer of 99 per cent", 1), &quiet())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert!(err.to_string().contains("is not on page 1"), "{err}");
    let err = agent
        .answer_review(&expert, &id, &reply(QUOTE, 3), &quiet())
        .await
        .unwrap_err();
    assert_eq!(
        err.kind(),
        ErrorKind::InvalidInput,
        "the right words on the wrong page: {err}"
    );
    assert_eq!(
        t.lib.store().review(&id).await.unwrap().status,
        ReviewStatus::Pending
    );

    // The asker goes on in the same thread meanwhile.
    let later = ask_ok(
        &agent,
        &asker,
        AskRequest {
            thread_id: Some(thread.clone()),
            ..ask("What capital conservation buffer must a licensed bank hold?")
        },
    )
    .await;
    assert_eq!(later.answer.status, Status::Answered);

    // The reviewer's answer, verified, replaces the waiting message in the asker's thread
    // (not the later one).
    let turn = agent
        .answer_review(&expert, &id, &reply(QUOTE, 1), &quiet())
        .await
        .unwrap();
    assert_eq!(turn.thread_id, thread);
    assert_ne!(turn.message_id, later.message_id);
    assert_eq!(turn.answer.status, Status::Answered);
    assert!(
        turn.answer.text.contains("Expert answer") && turn.answer.text.contains("expert"),
        "{}",
        turn.answer.text
    );
    assert_eq!(turn.answer.citations.len(), 1);
    assert_quotes_on_pages(&t.lib, &asker, &turn.answer.citations).await;
    let view = agent.thread(&asker, &thread).await.unwrap();
    let contents: Vec<&str> = view.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(contents.len(), 4, "{contents:?}");
    assert!(contents[1].contains("Expert answer"), "{contents:?}");
    assert!(
        contents[3].contains("2.5 per cent"),
        "the later answer stays: {contents:?}"
    );
    assert!(agent.reviews(&asker, false).await.unwrap().is_empty());
    let err = agent
        .answer_review(&expert, &id, &reply(QUOTE, 1), &quiet())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "answered once: {err}");

    // The same question later gets the expert's answer from the cache, marked as theirs.
    let again = ask_ok(&agent, &asker, ask(CLOUD)).await;
    assert!(again.cached, "{}", again.answer.text);
    assert!(
        again.answer.text.contains("Expert answer"),
        "{}",
        again.answer.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_travels_as_a_file_and_a_request_can_be_withdrawn() {
    let t = TestLib::new().await;
    let asker = t.profile("asker").await;
    let doc = ingest_fixture(&t.lib, &asker, "capital-2024.pdf").await;
    let agent = Agent::new(&t.lib);
    let thread = escalate(&agent, &asker, DRESS).await;
    let id = agent.reviews(&asker, false).await.unwrap()[0].id.clone();

    let file = agent.review_file(&asker, &id).await.unwrap();
    let text = serde_json::to_string_pretty(&file).unwrap();
    assert!(text.contains("\"format\": \"policypal-review\"") && text.contains(DRESS));
    // The colleague fills in the reply (here: edits the JSON as they would).
    let mut filled: ReviewFile = serde_json::from_str(&text).unwrap();
    let mut wrong = filled.clone();
    wrong.format = "something-else".into();
    assert_eq!(
        agent
            .import_review(&wrong, &quiet())
            .await
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        agent
            .import_review(&filled, &quiet())
            .await
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput,
        "an empty reply is refused"
    );
    filled.reply = ExpertReply {
        reviewer: "J. Smith, HR".into(),
        answer: "Business attire; the capital guidelines do not cover it.".into(),
        citations: vec![],
    };
    let turn = agent.import_review(&filled, &quiet()).await.unwrap();
    assert_eq!(
        (turn.thread_id.as_str(), turn.answer.status),
        (thread.as_str(), Status::Answered)
    );
    assert!(
        turn.answer.text.contains("J. Smith, HR"),
        "{}",
        turn.answer.text
    );
    assert!(turn.answer.citations.is_empty());
    assert_eq!(
        agent
            .import_review(&filled, &quiet())
            .await
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput,
        "imported once"
    );
    let _ = doc;

    // Withdrawn through the waiting message's option: the run ends saying so.
    let thread = escalate(&agent, &asker, BUDGET).await;
    let turn = agent
        .resume(&asker, &thread, Some("withdraw"), &quiet())
        .await
        .unwrap();
    assert_eq!(turn.answer.status, Status::Refused);
    assert!(
        turn.answer.text.contains("withdrawn"),
        "{}",
        turn.answer.text
    );
    let all = agent.reviews(&asker, true).await.unwrap();
    assert_eq!(
        all.iter().map(|r| r.status).collect::<Vec<_>>(),
        vec![ReviewStatus::Answered, ReviewStatus::Withdrawn]
    );
}
