//! `policypal reviews …`: the expert-review inbox on the command line (issue 18 §3) — list the
//! requests, answer one as a reviewer profile, export one as a file for a colleague, import the
//! colleague's reply, withdraw one's own. Must not: hold review rules (they are in
//! `agent::review`).

use std::path::PathBuf;

use clap::Subcommand;

use super::{print_json, print_turn};
use crate::agent::Agent;
use crate::agent::review::{ExpertCitation, ExpertReply, ReviewFile};
use crate::agent::types::Event;
use crate::store::Profile;
use crate::{Error, Library};

/// `reviews …`
#[derive(Debug, Subcommand)]
pub enum ReviewsCmd {
    /// The inbox: this profile's pending requests (every profile's for a reviewer), with age.
    List {
        /// Answered and withdrawn requests too.
        #[arg(long)]
        all: bool,
    },
    /// Write a request as a JSON file for a colleague to fill in its `reply`.
    Export {
        /// Request id.
        id: String,
        /// File to write (default: stdout).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Import a colleague's filled-in reply: its citations are verified, then the waiting
    /// question is answered.
    Import {
        /// The review file with its reply.
        file: PathBuf,
    },
    /// Answer a request as this (reviewer) profile.
    Answer {
        /// Request id.
        id: String,
        /// The expert's answer, as the asker will read it.
        #[arg(long)]
        text: String,
        /// A citation `DOCUMENT_ID:PAGE:QUOTE` (repeatable), the quote as printed on the page.
        #[arg(long = "cite")]
        cites: Vec<String>,
    },
    /// Withdraw one of this profile's requests.
    Withdraw {
        /// Request id.
        id: String,
    },
}

pub(super) async fn run(
    lib: &Library,
    profile: &Profile,
    cmd: &ReviewsCmd,
    json: bool,
) -> Result<(), Error> {
    let agent = Agent::new(lib);
    let quiet = |_: &Event| {};
    match cmd {
        ReviewsCmd::List { all } => {
            let list = agent.reviews(profile, *all).await?;
            if json {
                return print_json(&list);
            }
            if list.is_empty() {
                println!("no review requests");
            }
            for r in list {
                println!(
                    "{}  {:<10} {:>6}  {:<16} {}",
                    r.id,
                    format!("{:?}", r.status).to_lowercase(),
                    age(r.age_secs),
                    r.asked_by,
                    crate::agent::rules::text::clip(&r.question, 80)
                );
            }
            Ok(())
        }
        ReviewsCmd::Export { id, out } => {
            let file = agent.review_file(profile, id).await?;
            let text =
                serde_json::to_string_pretty(&file).map_err(|e| Error::Internal(e.to_string()))?;
            match out {
                Some(path) => {
                    std::fs::write(path, text + "\n").map_err(|source| Error::File {
                        path: path.clone(),
                        source,
                    })?;
                    if !json {
                        println!("wrote {}", path.display());
                    }
                    Ok(())
                }
                None => {
                    println!("{text}");
                    Ok(())
                }
            }
        }
        ReviewsCmd::Import { file } => {
            let parsed = ReviewFile::read(file)?;
            let turn = agent.import_review(&parsed, &quiet).await?;
            print_turn(&turn, json)
        }
        ReviewsCmd::Answer { id, text, cites } => {
            let citations = cites
                .iter()
                .map(|c| parse_cite(c))
                .collect::<Result<Vec<_>, _>>()?;
            let reply = ExpertReply {
                reviewer: String::new(),
                answer: text.clone(),
                citations,
            };
            let turn = agent.answer_review(profile, id, &reply, &quiet).await?;
            print_turn(&turn, json)
        }
        ReviewsCmd::Withdraw { id } => {
            let turn = agent.withdraw_review(profile, id, &quiet).await?;
            print_turn(&turn, json)
        }
    }
}

/// `DOCUMENT_ID:PAGE:QUOTE` (the quote may hold colons).
fn parse_cite(s: &str) -> Result<ExpertCitation, Error> {
    let bad = || {
        Error::InvalidInput(format!(
            "--cite {s:?}: expected DOCUMENT_ID:PAGE:QUOTE, e.g. 01a2…:3:\"must be kept for five years\""
        ))
    };
    let mut parts = s.splitn(3, ':');
    let (Some(doc), Some(page), Some(quote)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    let page: u32 = page.trim().parse().map_err(|_| bad())?;
    if doc.trim().is_empty() || quote.trim().is_empty() {
        return Err(bad());
    }
    Ok(ExpertCitation {
        document_id: doc.trim().to_owned(),
        page,
        quote: quote.trim().to_owned(),
    })
}

/// "3 min", "5 h", "2 d".
fn age(secs: i64) -> String {
    match secs {
        s if s < 3600 => format!("{} min", s / 60),
        s if s < 86_400 => format!("{} h", s / 3600),
        s => format!("{} d", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_citation_argument_keeps_the_colons_of_its_quote() {
        let c = parse_cite("doc-1:3:Records: kept for 5 years").unwrap();
        assert_eq!((c.document_id.as_str(), c.page), ("doc-1", 3));
        assert_eq!(c.quote, "Records: kept for 5 years");
        assert!(parse_cite("doc-1:three:x").is_err());
        assert!(parse_cite("doc-1:3").is_err());
        assert_eq!(age(59), "0 min");
        assert_eq!(age(7200), "2 h");
        assert_eq!(age(3 * 86_400), "3 d");
    }
}
