//! Random SIGKILLs of real `policypal` processes in the middle of ingest, delete, reindex and
//! an agent run — half the time while a second process asks or adds another file beside it —
//! each followed by the library's invariants checked from fresh processes.
//!
//! The moment of each kill is drawn from a seeded generator: the seed is printed, and
//! `POLICYPAL_KILL_SEED` replays a failing sequence (`POLICYPAL_KILL_ROUNDS` sets its length).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli::{pp, run, walk};
use crate::common::{make_pdf, prose_pages, write};

/// xorshift64*: enough to spread kill moments; the seed makes a run reproducible.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Op {
    Ingest,
    Delete,
    Reindex,
    Ask,
}

const TOPICS: [&str; 6] = [
    "capital",
    "liquidity",
    "conduct",
    "custody",
    "outsourcing",
    "reporting",
];

#[test]
fn the_library_survives_random_kills_of_ingest_delete_reindex_and_ask() {
    let seed = std::env::var("POLICYPAL_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    let rounds: usize = std::env::var("POLICYPAL_KILL_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    eprintln!("kill loop: seed {seed}, {rounds} rounds (POLICYPAL_KILL_SEED replays it)");
    let mut rng = Rng(seed);
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("data");
    let src = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = TOPICS
        .iter()
        .map(|t| {
            write(
                src.path(),
                &format!("{t}.pdf"),
                &make_pdf(&prose_pages(40, t)),
            )
        })
        .collect();

    // Each operation run once to its end: the library starts with documents and a thread, and
    // the durations bound the kill moments (a kill lands anywhere in an operation's run).
    let mut took = std::collections::HashMap::new();
    let timed = |args: &[&str]| {
        let t = Instant::now();
        let (code, v) = run(&d, args);
        assert_eq!(code, 0, "{args:?}: {v}");
        (t.elapsed(), v)
    };
    let (t, _) = timed(&["ingest", files[0].to_str().unwrap()]);
    took.insert(Op::Ingest, t);
    let (_, v) = timed(&["ingest", files[1].to_str().unwrap()]);
    let (t, _) = timed(&["docs", "delete", v[0]["document"]["id"].as_str().unwrap()]);
    took.insert(Op::Delete, t);
    timed(&["ingest", files[1].to_str().unwrap()]);
    let (t, _) = timed(&["reindex"]);
    took.insert(Op::Reindex, t);
    let (t, _) = timed(&["ask", "What does the capital rule number 1205 require?"]);
    took.insert(Op::Ask, t);

    let mut kills = std::collections::HashMap::<Op, usize>::new();
    let mut finished = 0;
    let mut resumed = 0;
    // Processes beside a killed one: (finished, told the library is busy).
    let mut bystanders = (0, 0);
    // Threads found answered: a later kill of another process cannot change them.
    let mut settled = HashSet::new();
    for round in 0..rounds {
        let docs = documents(&d);
        let ready: Vec<&Value> = docs.iter().filter(|x| x["status"] == "ready").collect();
        let in_library: HashSet<&str> = docs
            .iter()
            .filter(|x| x["status"] == "ready")
            .filter_map(|x| x["file_name"].as_str())
            .collect();
        let addable: Vec<&PathBuf> = files
            .iter()
            .filter(|f| !in_library.contains(f.file_name().unwrap().to_str().unwrap()))
            .collect();
        let mut ops = vec![Op::Reindex, Op::Ask];
        if !addable.is_empty() {
            ops.extend([Op::Ingest, Op::Ingest]);
        }
        if ready.len() > 1 {
            ops.push(Op::Delete);
        }
        let op = ops[rng.below(ops.len() as u64) as usize];
        let args: Vec<String> = match op {
            Op::Ingest => {
                let f = addable[rng.below(addable.len() as u64) as usize];
                vec!["ingest".into(), f.to_str().unwrap().into()]
            }
            Op::Delete => {
                let doc = ready[rng.below(ready.len() as u64) as usize];
                vec![
                    "docs".into(),
                    "delete".into(),
                    doc["id"].as_str().unwrap().into(),
                ]
            }
            Op::Reindex => vec!["reindex".into()],
            Op::Ask => {
                let topic = TOPICS[rng.below(TOPICS.len() as u64) as usize];
                let n = 100 + rng.below(3900);
                vec![
                    "ask".into(),
                    format!("What does the {topic} rule number {n} require?"),
                ]
            }
        };
        // Every other round a second process works on the library at the same moment and is
        // not killed (asking, or adding another file): it must finish, or be told the library
        // is busy; recovery run by the processes after the kill must not touch its work.
        let bystander_args: Option<Vec<String>> = match rng.below(4) {
            0 => Some(vec![
                "ask".into(),
                "What does the liquidity rule number 1207 require?".into(),
            ]),
            1 => addable
                .iter()
                .find(|f| !args.iter().any(|a| a == f.to_str().unwrap()))
                .map(|f| vec!["ingest".into(), f.to_str().unwrap().into()]),
            _ => None,
        };
        let bystander = bystander_args.as_ref().map(|a| {
            pp(&d)
                .arg("--json")
                .args(a)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        });
        let budget = u64::try_from(took[&op].as_millis()).unwrap();
        let delay = Duration::from_millis(rng.below(budget));
        let mut child = pp(&d)
            .arg("--json")
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            *kills.entry(op).or_default() += 1;
        } else {
            finished += 1;
        }
        child.wait().unwrap();
        let context = format!(
            "round {round}: {args:?} killed after {delay:?} beside {bystander_args:?} (seed {seed})"
        );
        if let Some(b) = bystander {
            let out = b.wait_with_output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success()
                    || stdout
                        .replace(char::is_whitespace, "")
                        .contains(r#""kind":"busy""#),
                "{context}: the process beside the killed one failed: {:?} {stdout}",
                out.status
            );
            if out.status.success() {
                bystanders.0 += 1;
            } else {
                bystanders.1 += 1;
            }
        }
        resumed += check_invariants(&d, round, &context, &mut settled);
    }
    let total: usize = kills.values().sum();
    eprintln!(
        "kill loop: {total} kills survived ({kills:?}), {finished} operations finished before \
         their kill, {resumed} interrupted answers resumed; of the processes working beside a \
         killed one, {} finished and {} were told the library is busy",
        bystanders.0, bystanders.1
    );
    // The kill moments are drawn inside each operation's measured run: most rounds kill.
    assert!(
        total * 2 >= rounds,
        "only {total} of {rounds} rounds killed a live process"
    );
}

/// The documents of the default profile, listed by a fresh process (which runs recovery).
fn documents(d: &Path) -> Vec<Value> {
    let (code, v) = run(d, &["docs", "list"]);
    assert_eq!(code, 0, "{v}");
    v.as_array().unwrap().clone()
}

/// Checks what must hold after any kill, once a new process has opened the library; resumes
/// every answer a kill interrupted and returns how many it resumed.
fn check_invariants(d: &Path, round: usize, context: &str, settled: &mut HashSet<String>) -> usize {
    let docs = documents(d);
    let mut ids = HashSet::new();
    for doc in &docs {
        let id = doc["id"].as_str().unwrap();
        ids.insert(id.to_owned());
        let status = doc["status"].as_str().unwrap();
        assert!(
            matches!(status, "ready" | "failed"),
            "{context}: a document is {status} after recovery: {doc}"
        );
        let (code, details) = run(d, &["docs", "show", id]);
        assert_eq!(code, 0, "{context}: {details}");
        let stored = PathBuf::from(details["stored_file"].as_str().unwrap());
        if status == "ready" {
            assert!(stored.is_file(), "{context}: ready without its file: {doc}");
            let chunks = details["chunk_count"].as_u64().unwrap();
            assert!(chunks > 0, "{context}: ready with no chunks: {doc}");
            assert_eq!(
                details["indexed_chunks"].as_u64(),
                Some(chunks),
                "{context}: ready without all its chunks: {details}"
            );
        }
    }
    // Every stored file belongs to a document; nothing half-written anywhere.
    for f in walk(&d.join("files")) {
        let stem = f.file_stem().unwrap().to_str().unwrap();
        assert!(
            f.extension().is_some_and(|e| e == "pdf") && ids.contains(stem),
            "{context}: orphan file {}",
            f.display()
        );
    }
    let partial: Vec<PathBuf> = walk(d)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".partial"))
        .collect();
    assert!(partial.is_empty(), "{context}: {partial:?}");
    assert!(
        !d.join("locks").read_dir().unwrap().any(|_| true),
        "{context}: a lock file was left"
    );
    assert_eq!(
        std::fs::read_dir(d.join("lancedb")).unwrap().count(),
        1,
        "{context}: more than one chunks table after recovery"
    );
    // Search works, and finds only listed, ready documents.
    let ready: HashSet<&str> = docs
        .iter()
        .filter(|x| x["status"] == "ready")
        .filter_map(|x| x["id"].as_str())
        .collect();
    // Two topics a round (one fixed, one in turn) keep the loop's cost down.
    for topic in [TOPICS[0], TOPICS[1 + round % (TOPICS.len() - 1)]] {
        let (code, hits) = run(d, &["search", &format!("{topic} rule number 1207")]);
        assert_eq!(code, 0, "{context}: {hits}");
        for h in hits.as_array().unwrap() {
            let doc = h["document_id"].as_str().unwrap();
            assert!(ready.contains(doc), "{context}: a hit from {doc}: {h}");
        }
    }
    // Every thread ends with an answer, or its interrupted run is resumed to one.
    let (code, list) = run(d, &["threads", "list", "--limit", "500"]);
    assert_eq!(code, 0, "{context}: {list}");
    let mut resumed = 0;
    for t in list["threads"].as_array().unwrap() {
        let id = t["id"].as_str().unwrap();
        if settled.contains(id) {
            continue;
        }
        // (answered: its last message is the answer, unfinished: the desktop offers Resume)
        let state = |d: &Path| {
            let (code, v) = run(d, &["threads", "show", id]);
            assert_eq!(code, 0, "{context}: {v}");
            let last = v["messages"].as_array().unwrap().last().cloned();
            (
                last.is_some_and(|m| m["role"] == "assistant"),
                v["unfinished"].as_bool().unwrap(),
            )
        };
        let (answered, unfinished) = state(d);
        assert_ne!(
            answered, unfinished,
            "{context}: thread {id} is neither answered nor resumable, or both"
        );
        if answered {
            settled.insert(id.to_owned());
            continue;
        }
        let (code, v) = run(d, &["resume", "--thread", id]);
        assert_eq!(code, 0, "{context}: thread {id} cannot be resumed: {v}");
        assert_eq!(
            state(d),
            (true, false),
            "{context}: thread {id} resumed without an answer"
        );
        settled.insert(id.to_owned());
        resumed += 1;
    }
    resumed
}
