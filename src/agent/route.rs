//! Spec 002's model-based routing: in generative mode, the model reads the message with the
//! conversation and the profile's documents and says which action it asks for and which
//! documents it is about, as one JSON object checked against the closed set of actions and the
//! profile's real document ids (one corrective retry).
//!
//! Owns: the routing prompt and the validation of its reply. Must not: decide anything the
//! reply does not say — with no model, offline, or a reply that cannot be used, the graph keeps
//! the deterministic resolver's reading (`resolve`), and a document the model names that the
//! profile does not hold is never used.

use std::collections::HashSet;

use serde::Deserialize;

use crate::agent::Agent;
use crate::agent::model::complete_parsed;
use crate::agent::types::*;
use crate::store::Profile;

/// The model's reading of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The action asked for.
    pub action: Action,
    /// Documents of the profile the message is about (none: the whole library).
    pub documents: Vec<String>,
    /// The model's reason, a few words.
    pub reason: String,
}

/// Most documents listed to the model: beyond, the list would crowd out the conversation and
/// the deterministic resolver (titles named in the message, retrieval) does better.
const MAX_LISTED: usize = 200;

impl Agent<'_> {
    /// Asks the configured model how to route the message. `None` when the run is extractive,
    /// no model is configured, the model fails, or its reply does not validate (logged): the
    /// deterministic resolver's reading stands then.
    pub(in crate::agent) async fn route_with_model(
        &self,
        profile: &Profile,
        state: &mut RunState,
    ) -> Option<Route> {
        if state.mode != Mode::Generative {
            return None;
        }
        let model = self.chat_model(profile).ok()??;
        if !model.settings().route_with_model {
            return None;
        }
        let docs = self.lib.documents(profile).await.ok()?;
        let listed: Vec<_> = docs
            .iter()
            .filter(|d| {
                matches!(
                    d.status,
                    crate::store::DocStatus::Ready | crate::store::DocStatus::Disabled
                )
            })
            .take(MAX_LISTED)
            .collect();
        let history = self.window(profile, state).await.ok()?;
        let catalogue: String = listed
            .iter()
            .map(|d| format!("- {} — {} ({})\n", d.id, d.label(), d.doc_type.as_str()))
            .collect();
        let system = format!(
            "You route a message for PolicyPal, a compliance assistant, to one action and the documents it is about.\n\n\
             Actions:\n- inquire: answer a question from the documents\n- summarize: summarize one or more documents\n\
             - compare: compare two or more documents or versions\n- audit: check a text the user pasted (or a policy) against documents\n\n\
             Documents (id — title (kind)):\n{catalogue}\n\
             Reply with one JSON object only: {{\"action\": \"inquire|summarize|compare|audit\", \"documents\": [\"<id>\", ...], \"reason\": \"<a few words>\"}}. \
             List only ids from the list above, at most {MAX_DOCUMENTS}, and only documents the message or the conversation names or refers to; an empty list means the whole library."
        );
        let messages = vec![
            crate::llm::Message::System(system),
            crate::llm::Message::User(format!(
                "{history}Message: {}",
                crate::agent::resolve::strip_tags(&state.question)
            )),
        ];
        let ids: HashSet<String> = listed.iter().map(|d| d.id.clone()).collect();
        let name = model.settings().model_for(Action::Inquire.as_str());
        match complete_parsed(
            &model,
            &name,
            &messages,
            &|_: &str| {},
            &|reply: &str| parse_route(reply, &ids),
            "one JSON object with action, documents and reason",
            crate::agent::model::SHORT_REPLY_TOKENS,
        )
        .await
        {
            Ok((route, usage)) => {
                crate::agent::model::add_side_usage(state, &usage);
                Some(route)
            }
            Err(e) => {
                tracing::debug!(error = %e, "model routing failed; using the deterministic resolver");
                None
            }
        }
    }
}

/// Reads a routing reply: the first JSON object in it, an action of the closed set, document
/// ids the profile holds (duplicates dropped, order kept). Anything else is a reason for the
/// corrective retry.
pub(in crate::agent) fn parse_route(reply: &str, ids: &HashSet<String>) -> Result<Route, String> {
    #[derive(Deserialize)]
    struct Raw {
        action: String,
        #[serde(default)]
        documents: Vec<String>,
        #[serde(default)]
        reason: String,
    }
    let raw: Raw = serde_json::from_str(crate::agent::model::json_object(reply)?)
        .map_err(|e| format!("the JSON object did not parse: {e}"))?;
    let action = Action::parse(&raw.action).ok_or_else(|| {
        format!(
            "\"{}\" is not one of inquire, summarize, compare, audit",
            raw.action
        )
    })?;
    let mut documents: Vec<String> = Vec::new();
    for id in raw.documents {
        let id = id.trim().to_owned();
        if !ids.contains(&id) {
            return Err(format!("\"{id}\" is not the id of a listed document"));
        }
        if !documents.contains(&id) {
            documents.push(id);
        }
    }
    // The actions' own contracts, which a weak model breaks by listing every document it was
    // shown: an action takes at most MAX_DOCUMENTS, a comparison at least two (or none, for
    // retrieval to choose).
    if documents.len() > MAX_DOCUMENTS {
        return Err(format!(
            "{} documents were named; name at most {MAX_DOCUMENTS}, only those the message is about, or none for the whole library",
            documents.len()
        ));
    }
    if action == Action::Compare && documents.len() == 1 {
        return Err("a comparison needs at least two documents (or none)".into());
    }
    Ok(Route {
        action,
        documents,
        reason: raw.reason.trim().chars().take(200).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> HashSet<String> {
        ["doc-a", "doc-b"].iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_valid_reply_is_read_from_around_the_json() {
        let r = parse_route(
            "Sure.\n```json\n{\"action\": \"compare\", \"documents\": [\"doc-b\", \"doc-a\", \"doc-b\"], \"reason\": \"two leases\"}\n```",
            &ids(),
        )
        .unwrap();
        assert_eq!(r.action, Action::Compare);
        assert_eq!(r.documents, ["doc-b", "doc-a"]);
        assert_eq!(r.reason, "two leases");
        let bare = parse_route("{\"action\": \"summarise\"}", &ids()).unwrap();
        assert_eq!((bare.action, bare.documents.len()), (Action::Summarize, 0));
    }

    #[test]
    fn unknown_actions_and_documents_are_refused_with_the_reason() {
        let e = parse_route("{\"action\": \"translate\", \"documents\": []}", &ids()).unwrap_err();
        assert!(e.contains("translate"), "{e}");
        let e = parse_route(
            "{\"action\": \"inquire\", \"documents\": [\"doc-z\"]}",
            &ids(),
        )
        .unwrap_err();
        assert!(e.contains("doc-z"), "{e}");
        assert!(parse_route("inquire", &ids()).is_err());
        // Every document of a library listed, and a comparison of one document: not a reading
        // of the message but a broken contract.
        let many: HashSet<String> = (0..9).map(|i| format!("d{i}")).collect();
        let all = format!(
            "{{\"action\": \"inquire\", \"documents\": [{}]}}",
            (0..9)
                .map(|i| format!("\"d{i}\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert!(parse_route(&all, &many).unwrap_err().contains("at most"));
        let one = "{\"action\": \"compare\", \"documents\": [\"doc-a\"]}";
        assert!(parse_route(one, &ids()).unwrap_err().contains("two"));
        assert!(parse_route("{\"documents\": []}", &ids()).is_err());
    }
}
