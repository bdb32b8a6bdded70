//! The `policypal` command line: argument parsing, human and `--json` output, progress bars
//! and exit codes.
//!
//! Owns: everything printed to the terminal. Each subcommand is a thin adapter over one
//! [`Library`] call, the same calls the desktop app makes. Must not: contain library logic.
//!
//! Exit codes: 0 success; 1 internal error; 2 bad input (invalid argument, unknown profile,
//! document or set, duplicate, unsupported PDF, cancelled); 3 environment (embedding model
//! missing, index built by another model, remote service or keychain unavailable).

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod reviews;

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::agent::Agent;
use crate::agent::types::{Action, AskRequest, Event, Mode, Status, TurnResult};
use crate::config::DataDir;
use crate::embed::minilm::Arithmetic;
use crate::store::{DocType, Document, Profile, UserContext};
use crate::{
    Error, ErrorKind, Flow, IngestRequest, Library, Progress, SearchRequest, Stage, bench, secrets,
};

/// Cited answers over a local library of regulatory and policy PDFs.
#[derive(Debug, Parser)]
#[command(name = "policypal", version, about)]
pub struct Cli {
    /// Data directory (default: the per-user data directory the desktop app uses).
    #[arg(long, global = true, env = crate::config::DATA_DIR_ENV)]
    pub data_dir: Option<PathBuf>,
    /// Profile to act on (created on first use only when it is "default"); without it, the
    /// profile in use in the desktop app (else the first profile, else "default").
    #[arg(long, global = true, env = "POLICYPAL_PROFILE")]
    pub profile: Option<String>,
    /// Machine-readable output on stdout (progress as JSON lines on stderr).
    #[arg(long, global = true)]
    pub json: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Manage profiles.
    #[command(subcommand)]
    Profiles(ProfilesCmd),
    /// Add PDFs to the library.
    Ingest(IngestArgs),
    /// Inspect and manage documents.
    #[command(subcommand)]
    Docs(DocsCmd),
    /// Manage document sets.
    #[command(subcommand)]
    Sets(SetsCmd),
    /// Hybrid (vector + full-text) search of the library.
    Search(SearchArgs),
    /// Ask the agent a question (a new thread, or a follow-up with --thread).
    Ask(AskArgs),
    /// Answer a clarification or low-confidence prompt, or finish an interrupted run.
    Resume {
        /// Thread id.
        #[arg(long)]
        thread: String,
        /// The option id to choose.
        #[arg(long)]
        choose: Option<String>,
    },
    /// Conversations.
    #[command(subcommand)]
    Threads(ThreadsCmd),
    /// Expert review requests: the inbox, answering, export and import.
    #[command(subcommand)]
    Reviews(reviews::ReviewsCmd),
    /// Interactive chat on the terminal (same engine as `ask`).
    Chat {
        /// Continue this thread.
        #[arg(long)]
        thread: Option<String>,
    },
    /// Run a development-set questions file and write results for score.py.
    Eval {
        /// Questions file (JSONL).
        questions: PathBuf,
        /// Folder with the corpus PDFs (ingested under their file names).
        #[arg(long)]
        corpus: PathBuf,
        /// Result file (JSONL).
        #[arg(long)]
        out: PathBuf,
        /// Also write, per whole-library inquire item, every candidate sentence of its
        /// extractive answer with the scorer's signals (JSONL; see scripts/fit-scorer.py).
        #[arg(long)]
        signals: Option<PathBuf>,
        /// Answering mode: `generative` answers with the configured model (a local GGUF or a
        /// server; see `models add`).
        #[arg(long, value_parser = ["extractive", "generative"], default_value = "extractive")]
        mode: String,
        /// Also write, per whole-library inquire item, the ranked hits of `policypal search`
        /// for its question with their vector and full-text ranks and scores (JSONL
        /// `{"id", "hits": [{"doc", "page", …}]}`, scored by `obliqa/score.py --hits`).
        #[arg(long)]
        hits: Option<PathBuf>,
    },
    /// Re-embed every document with the configured embedding model.
    Reindex,
    /// Manage API keys in the OS keychain.
    #[command(subcommand)]
    Keys(KeysCmd),
    /// Local models (GGUF files run in process) for generative mode.
    #[command(subcommand)]
    Models(ModelsCmd),
    /// Measure ingestion and search speed (prints JSON).
    #[command(subcommand)]
    Bench(BenchCmd),
}

/// `models …`
#[derive(Debug, Subcommand)]
pub enum ModelsCmd {
    /// Register a GGUF model file and make it the model of every action in generative mode
    /// (`ask --mode generative` then answers with it, in this process, offline).
    Add {
        /// The .gguf file (it stays where it is).
        file: PathBuf,
    },
    /// List the registered local models.
    List,
    /// Unregister a local model (the file is not deleted).
    Remove {
        /// Its name (as `models list` shows it).
        name: String,
    },
}

/// `profiles …`
#[derive(Debug, Subcommand)]
pub enum ProfilesCmd {
    /// Create a profile.
    Create {
        /// Unique name.
        name: String,
        /// Organisation ("Acme Bank").
        #[arg(long, default_value = "")]
        organisation: String,
        /// Industry ("Banking").
        #[arg(long, default_value = "")]
        industry: String,
        /// Jurisdiction ("Malaysia").
        #[arg(long, default_value = "")]
        location: String,
    },
    /// List profiles.
    List,
    /// Mark a profile as a reviewer (it answers the questions other profiles escalate to an
    /// expert) or not.
    Reviewer {
        /// Name or id.
        name: String,
        /// `on` or `off`.
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
    /// Make a profile the one used when none is named, here and in the desktop app.
    Use {
        /// Name or id.
        name: String,
    },
    /// Show one profile (default: --profile, else the one in use).
    Show {
        /// Name or id.
        name: Option<String>,
    },
    /// Redact personal data (emails, phones, IBANs, cards, national ids, listed names) from
    /// anything sent to a remote model or the web; the local history keeps the real text.
    Privacy {
        /// `on` or `off`.
        #[arg(long, value_parser = ["on", "off"])]
        redact: String,
        /// A person name to redact (repeatable); replaces the profile's list.
        #[arg(long = "name")]
        names: Vec<String>,
    },
}

/// Kind of document on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DocTypeArg {
    /// External regulation.
    Regulatory,
    /// Internal company policy.
    Policy,
}

impl From<DocTypeArg> for DocType {
    fn from(t: DocTypeArg) -> Self {
        match t {
            DocTypeArg::Regulatory => DocType::Regulatory,
            DocTypeArg::Policy => DocType::Policy,
        }
    }
}

/// `ingest FILES…`
#[derive(Debug, Args)]
pub struct IngestArgs {
    /// PDF files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Title (only with one file; default: the file name).
    #[arg(long)]
    pub title: Option<String>,
    /// Version label (only with one file).
    #[arg(long)]
    pub version: Option<String>,
    /// Kind of document.
    #[arg(long = "type", value_enum, default_value = "regulatory")]
    pub doc_type: DocTypeArg,
    /// Set to file the documents under (created if new).
    #[arg(long)]
    pub set: Option<String>,
    /// Id of the document this one replaces (only with one file).
    #[arg(long)]
    pub supersedes: Option<String>,
}

/// `docs …`
#[derive(Debug, Subcommand)]
pub enum DocsCmd {
    /// List documents.
    List,
    /// Show one document.
    Show {
        /// Document id.
        id: String,
    },
    /// Delete a document, its chunks and its stored file.
    Delete {
        /// Document id.
        id: String,
    },
    /// Exclude a document from searches unless named explicitly.
    Disable {
        /// Document id.
        id: String,
    },
    /// Include a disabled document again.
    Enable {
        /// Document id.
        id: String,
    },
}

/// `sets …`
#[derive(Debug, Subcommand)]
pub enum SetsCmd {
    /// List sets.
    List,
    /// Create a set.
    Create {
        /// Name.
        name: String,
        /// Colour from the palette (default: the next one).
        #[arg(long)]
        colour: Option<String>,
    },
    /// Rename a set.
    Rename {
        /// Current name.
        old: String,
        /// New name.
        new: String,
    },
    /// Change a set's colour.
    Recolor {
        /// Name.
        name: String,
        /// Colour from the palette.
        colour: String,
    },
}

/// `search QUERY`
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for.
    pub query: String,
    /// Number of results.
    #[arg(short, long, default_value_t = 5)]
    pub k: usize,
    /// Only these documents (repeatable).
    #[arg(long = "doc")]
    pub docs: Vec<String>,
    /// Only this set.
    #[arg(long)]
    pub set: Option<String>,
    /// Only this kind of document.
    #[arg(long = "type", value_enum)]
    pub doc_type: Option<DocTypeArg>,
}

/// `ask QUESTION`
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The question (may hold `@<document id>` and `@action` tags).
    pub question: String,
    /// Continue this thread.
    #[arg(long)]
    pub thread: Option<String>,
    /// Documents to use (repeatable).
    #[arg(long = "doc")]
    pub docs: Vec<String>,
    /// Restrict to a set.
    #[arg(long)]
    pub set: Option<String>,
    /// The action (default: classified from the question).
    #[arg(long, value_parser = ["inquire", "summarize", "compare", "audit"])]
    pub action: Option<String>,
    /// Idempotency key: the same id twice yields one answer.
    #[arg(long)]
    pub message_id: Option<String>,
    /// Answering mode.
    #[arg(long, value_parser = ["extractive", "generative"])]
    pub mode: Option<String>,
    /// Also search the web (Tavily; needs `"web": {"enabled": true}` and a key). Web results
    /// are shown in their own section, never mixed with the library's citations.
    #[arg(long)]
    pub web: bool,
}

/// `threads …`
#[derive(Debug, Subcommand)]
pub enum ThreadsCmd {
    /// List conversations, newest first.
    List {
        /// Include archived ones.
        #[arg(long)]
        all: bool,
        /// Page size.
        #[arg(long, default_value_t = 50)]
        limit: u32,
        /// Cursor: the `next_cursor` of the previous page.
        #[arg(long)]
        before: Option<String>,
    },
    /// Show a conversation with its citations (offline).
    Show {
        /// Thread id.
        thread: String,
    },
    /// Rename a conversation.
    Rename {
        /// Thread id.
        thread: String,
        /// New title.
        title: String,
    },
    /// Archive a conversation.
    Archive {
        /// Thread id.
        thread: String,
    },
    /// Export a conversation (Markdown, JSON or a PDF report).
    Export {
        /// Thread id.
        thread: String,
        /// Format.
        #[arg(long, value_enum, default_value = "md")]
        format: crate::report::ExportFormat,
        /// Export only this answer (for example one audit) with the request it answers.
        #[arg(long)]
        message: Option<String>,
        /// Write to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// Names of keys on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KeyName {
    /// Embeddings endpoint.
    Embeddings,
    /// Chat model endpoint.
    Llm,
    /// Web search.
    WebSearch,
}

impl KeyName {
    fn id(self) -> &'static str {
        match self {
            Self::Embeddings => secrets::EMBEDDINGS_KEY,
            Self::Llm => secrets::LLM_KEY,
            Self::WebSearch => secrets::WEB_SEARCH_KEY,
        }
    }
}

/// `keys …`
#[derive(Debug, Subcommand)]
pub enum KeysCmd {
    /// Store a key read from standard input (never from the command line), bound to the
    /// endpoint it will be sent to.
    Set {
        /// Which key.
        name: KeyName,
        /// The endpoint the key is for (default: the one settings.json configures for it).
        #[arg(long)]
        endpoint: Option<String>,
    },
    /// Show whether a key is stored (masked).
    Show {
        /// Which key.
        name: KeyName,
    },
    /// Delete a key.
    Delete {
        /// Which key.
        name: KeyName,
    },
}

/// Arithmetic of the local encoder's dense layers, for benchmarks.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ArithmeticArg {
    /// 16-bit integer products (AVX2; the default the product uses).
    Integer,
    /// f32 products (the reference).
    Float,
}

impl From<ArithmeticArg> for Arithmetic {
    fn from(a: ArithmeticArg) -> Self {
        match a {
            ArithmeticArg::Integer => Arithmetic::Integer,
            ArithmeticArg::Float => Arithmetic::Float,
        }
    }
}

/// `bench …`
#[derive(Debug, Subcommand)]
pub enum BenchCmd {
    /// Ingest files into a throw-away library and report per-stage throughput and peak RSS.
    Ingest {
        /// PDF files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Arithmetic of the encoder's dense layers (`float` is the f32 reference).
        #[arg(long, value_enum, default_value_t = ArithmeticArg::Integer)]
        arithmetic: ArithmeticArg,
    },
    /// Embed the chunks of files with the chosen arithmetic and with f32 and compare them:
    /// cosines, and how often each chunk's nearest neighbours agree.
    Quality {
        /// PDF files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Arithmetic measured against f32.
        #[arg(long, value_enum, default_value_t = ArithmeticArg::Integer)]
        arithmetic: ArithmeticArg,
    },
    /// Search latency at several library sizes, built from the chunks of a real PDF.
    Search {
        /// Library sizes in chunks.
        #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000")]
        chunks: Vec<usize>,
        /// PDF whose chunks seed the synthetic library.
        #[arg(long)]
        source: PathBuf,
        /// Queries per size.
        #[arg(long, default_value_t = 50)]
        queries: usize,
    },
    /// Latency of Summarize, Compare and Audit over up to 5 ready documents of the profile's
    /// library (extractive mode; every run is stored as a thread of that profile, so point it
    /// at an evaluation data directory).
    Actions {
        /// Runs per action.
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// Speed of a local GGUF model on a grounded prompt built from a PDF's text: load time,
    /// prompt and generation tokens per second, first-token latency.
    Generate {
        /// The .gguf file.
        #[arg(long)]
        model: PathBuf,
        /// PDF whose text fills the prompt's passages.
        #[arg(long)]
        source: PathBuf,
        /// Approximate prompt length in tokens.
        #[arg(long, default_value_t = 2000)]
        prompt_tokens: usize,
        /// Most tokens to generate per run.
        #[arg(long, default_value_t = 128)]
        max_tokens: u32,
        /// Runs (the first one also loads the model).
        #[arg(long, default_value_t = 3)]
        runs: usize,
    },
    /// Latency of a question (extractive) over the profile's whole library: first streamed
    /// event, first answer text, complete answer. Every question is stored as a thread of that
    /// profile, so point it at an evaluation data directory.
    Ask {
        /// Questions (default: a built-in mix of answerable and out-of-library questions).
        questions: Vec<String>,
        /// Runs over the questions.
        #[arg(long, default_value_t = 3)]
        runs: usize,
    },
}

/// Parses the process's arguments, runs the command and returns the process exit code.
pub async fn main() -> i32 {
    main_from(std::env::args_os()).await
}

/// [`main`] with the arguments given (the first is the program's name): how the desktop
/// program serves as the CLI (`policypal-desktop --cli …`, what the installed `policypal`
/// runs, so a package ships the core once).
pub async fn main_from(args: impl IntoIterator<Item = std::ffi::OsString>) -> i32 {
    // Panics are caught where they can happen (PDF parsing) and must not spill onto the
    // terminal; they go to the log, and only a panic of the main thread is reported.
    std::panic::set_hook(Box::new(|info| {
        let thread = std::thread::current();
        tracing::error!(thread = thread.name().unwrap_or("?"), "panic: {info}");
        if thread.name() == Some("main") {
            eprintln!("internal error: {info}");
        }
    }));
    let cli = Cli::parse_from(args);
    let json = cli.json;
    match run(cli).await {
        Ok(code) => code,
        Err(e) => {
            report_error(&e, json);
            exit_code(&e)
        }
    }
}

/// The exit code for an error.
pub fn exit_code(e: &Error) -> i32 {
    match e.kind() {
        _ if e.is_user_error() => 2,
        ErrorKind::ModelMissing
        | ErrorKind::ModelMismatch
        | ErrorKind::Remote
        | ErrorKind::NoKeychain => 3,
        _ => 1,
    }
}

fn error_json(e: &Error) -> serde_json::Value {
    json!({"kind": e.kind(), "message": e.to_string()})
}

fn report_error(e: &Error, json: bool) {
    if json {
        println!("{}", json!({ "error": error_json(e) }));
    } else {
        say(&format!("error: {e}"));
    }
}

fn print_json(v: &impl serde::Serialize) -> Result<(), Error> {
    let s = serde_json::to_string_pretty(v).map_err(|e| Error::Internal(e.to_string()))?;
    println!("{s}");
    Ok(())
}

async fn run(cli: Cli) -> Result<i32, Error> {
    let dir = DataDir::resolve(cli.data_dir.as_deref())?;
    dir.ensure()?;
    let _log = crate::logging::init(&dir);
    if let Command::Bench(BenchCmd::Actions { runs }) = &cli.command {
        let lib = Library::open(dir).await?;
        let result = match profile_of(&lib, &cli).await {
            Ok(profile) => bench::actions(&lib, &profile, *runs).await,
            Err(e) => Err(e),
        };
        lib.close().await;
        return print_json(&result?).map(|()| 0);
    }
    if let Command::Bench(BenchCmd::Ask { questions, runs }) = &cli.command {
        let lib = Library::open(dir).await?;
        let result = match profile_of(&lib, &cli).await {
            Ok(profile) => bench::ask(&lib, &profile, questions, *runs).await,
            Err(e) => Err(e),
        };
        lib.close().await;
        return print_json(&result?).map(|()| 0);
    }
    if let Command::Bench(cmd) = &cli.command {
        return run_bench(&dir, cmd).await.map(|()| 0);
    }
    if let Command::Keys(cmd) = &cli.command {
        return run_keys(&dir, cmd, cli.json).map(|()| 0);
    }
    if let Command::Models(cmd) = &cli.command {
        return run_models(&dir, cmd, cli.json).map(|()| 0);
    }
    let lib = Library::open(dir).await?;
    let result = run_with_library(&lib, &cli).await;
    lib.close().await;
    result
}

async fn profile_of(lib: &Library, cli: &Cli) -> Result<Profile, Error> {
    match cli.profile.as_deref() {
        None => lib.active_profile().await,
        Some("default") => lib.ensure_profile("default").await,
        Some(name) => lib.profile(name).await,
    }
}

async fn run_with_library(lib: &Library, cli: &Cli) -> Result<i32, Error> {
    let json = cli.json;
    if let Command::Ingest(args) = &cli.command {
        return run_ingest(lib, &profile_of(lib, cli).await?, args, json).await;
    }
    match &cli.command {
        Command::Profiles(cmd) => run_profiles(lib, cli, cmd).await,
        Command::Docs(cmd) => run_docs(lib, &profile_of(lib, cli).await?, cmd, json).await,
        Command::Sets(cmd) => run_sets(lib, &profile_of(lib, cli).await?, cmd, json).await,
        Command::Search(args) => run_search(lib, &profile_of(lib, cli).await?, args, json).await,
        Command::Ask(args) => run_ask(lib, &profile_of(lib, cli).await?, args, json).await,
        Command::Resume { thread, choose } => {
            let profile = profile_of(lib, cli).await?;
            let agent = Agent::new(lib);
            let turn = agent
                .resume(&profile, thread, choose.as_deref(), &|_: &Event| {})
                .await?;
            print_turn(&turn, json)
        }
        Command::Threads(cmd) => run_threads(lib, &profile_of(lib, cli).await?, cmd, json).await,
        Command::Reviews(cmd) => reviews::run(lib, &profile_of(lib, cli).await?, cmd, json).await,
        Command::Chat { thread } => {
            run_chat(lib, &profile_of(lib, cli).await?, thread.clone()).await
        }
        Command::Eval {
            questions,
            corpus,
            out,
            signals,
            hits,
            mode,
        } => {
            let mode = if mode == "generative" {
                Mode::Generative
            } else {
                Mode::Extractive
            };
            run_eval(
                lib,
                questions,
                corpus,
                out,
                signals.as_deref(),
                hits.as_deref(),
                mode,
            )
            .await
        }
        Command::Reindex => {
            let cancel = Arc::new(AtomicBool::new(false));
            let _ctrl_c = CancelOnCtrlC::new(cancel.clone());
            let bar = ProgressReporter::new(json, cancel);
            let n = lib.reindex(&|p: &Progress| bar.update(p)).await;
            bar.finish();
            let n = n?;
            if json {
                print_json(&json!({ "reindexed_documents": n }))
            } else {
                println!("re-indexed {n} documents");
                Ok(())
            }
        }
        Command::Ingest(_) | Command::Keys(_) | Command::Models(_) | Command::Bench(_) => Ok(()),
    }
    .map(|()| 0)
}

async fn run_profiles(lib: &Library, cli: &Cli, cmd: &ProfilesCmd) -> Result<(), Error> {
    let json = cli.json;
    match cmd {
        ProfilesCmd::Create {
            name,
            organisation,
            industry,
            location,
        } => {
            let context = UserContext {
                organisation: organisation.clone(),
                industry: industry.clone(),
                location: location.clone(),
            };
            let p = lib.store().create_profile(name, &context).await?;
            if json {
                print_json(&p)
            } else {
                println!("created profile {} ({})", p.name, p.id);
                Ok(())
            }
        }
        ProfilesCmd::List => {
            let ps = lib.store().profiles().await?;
            if json {
                return print_json(&ps);
            }
            if ps.is_empty() {
                println!("no profiles yet: policypal profiles create NAME");
            }
            for p in ps {
                println!(
                    "{:<24} {:<20} {:<20} {}",
                    p.name, p.industry, p.location, p.id
                );
            }
            Ok(())
        }
        ProfilesCmd::Reviewer { name, state } => {
            let p = lib.profile(name).await?;
            lib.store().set_reviewer(&p.id, state == "on").await?;
            let p = lib.profile(&p.id).await?;
            if json {
                print_json(&p)
            } else {
                println!(
                    "profile {} {} a reviewer",
                    p.name,
                    if p.reviewer { "is" } else { "is not" }
                );
                Ok(())
            }
        }
        ProfilesCmd::Use { name } => {
            let p = lib.profile(name).await?;
            lib.set_active_profile(&p).await?;
            if json {
                print_json(&p)
            } else {
                println!("using profile {} ({})", p.name, p.id);
                Ok(())
            }
        }
        ProfilesCmd::Show { name } => {
            let p = match name {
                Some(n) => lib.profile(n).await?,
                None => profile_of(lib, cli).await?,
            };
            if json {
                print_json(&p)
            } else {
                println!(
                    "name:         {}\norganisation: {}\nindustry:     {}\nlocation:     {}\nredact:       {}\nid:           {}",
                    p.name,
                    p.organisation,
                    p.industry,
                    p.location,
                    privacy_label(&p),
                    p.id
                );
                Ok(())
            }
        }
        ProfilesCmd::Privacy { redact, names } => {
            let p = profile_of(lib, cli).await?;
            let p = lib
                .store()
                .set_privacy(&p.id, redact == "on", names)
                .await?;
            if json {
                print_json(&p)
            } else {
                println!("{}: redaction {}", p.name, privacy_label(&p));
                Ok(())
            }
        }
    }
}

fn privacy_label(p: &Profile) -> String {
    match (p.redact_pii, p.redact_names.0.len()) {
        (false, _) => "off".into(),
        (true, 0) => "on (patterns only)".into(),
        (true, n) => format!("on (patterns and {n} names)"),
    }
}

async fn run_ingest(
    lib: &Library,
    profile: &Profile,
    args: &IngestArgs,
    json: bool,
) -> Result<i32, Error> {
    if args.files.len() > 1
        && (args.title.is_some() || args.version.is_some() || args.supersedes.is_some())
    {
        return Err(Error::InvalidInput(
            "--title, --version and --supersedes apply to one file; ingest files one at a time to label them".into(),
        ));
    }
    let mut results = Vec::new();
    let mut first_error: Option<Error> = None;
    let cancel = Arc::new(AtomicBool::new(false));
    let _ctrl_c = CancelOnCtrlC::new(cancel.clone());
    for path in &args.files {
        if cancel.load(Ordering::SeqCst) {
            break;
        }
        let req = IngestRequest {
            path: path.clone(),
            title: args.title.clone(),
            version: args.version.clone(),
            doc_type: args.doc_type.into(),
            set: args.set.clone(),
            supersedes: args.supersedes.clone(),
        };
        let bar = ProgressReporter::new(json, cancel.clone());
        let outcome = lib
            .ingest(profile, &req, &|p: &Progress| bar.update(p))
            .await;
        bar.finish();
        match outcome {
            Ok(report) => {
                if !json {
                    print_ingested(&report.document);
                }
                results.push(json!({"file": path, "ok": true, "document": report.document, "timings": report.timings}));
            }
            Err(e) => {
                if !json {
                    say(&format!("error: {}: {e}", path.display()));
                }
                results.push(json!({"file": path, "ok": false, "error": error_json(&e)}));
                // The exit code reports the most serious failure: internal > environment > input.
                let rank = |e: &Error| match exit_code(e) {
                    1 => 3,
                    3 => 2,
                    _ => 1,
                };
                if first_error.as_ref().is_none_or(|f| rank(&e) > rank(f)) {
                    first_error = Some(e);
                }
            }
        }
    }
    if json {
        print_json(&results)?;
    }
    // Failures were reported per file; only the exit code is left to set.
    Ok(first_error.as_ref().map_or(0, exit_code))
}

fn print_ingested(d: &Document) {
    let mut line = format!(
        "added {} — {} pages, {} chunks ({})",
        d.label(),
        d.page_count,
        d.chunk_count,
        d.id
    );
    if !d.empty_pages.is_empty() {
        line.push_str(&format!(
            "\n  note: {} page(s) have no text layer and were skipped: {:?}",
            d.empty_pages.len(),
            d.empty_pages
        ));
    }
    if let Some(old) = &d.supersedes {
        line.push_str(&format!("\n  supersedes {old}"));
    }
    println!("{line}");
}

async fn run_docs(
    lib: &Library,
    profile: &Profile,
    cmd: &DocsCmd,
    json: bool,
) -> Result<(), Error> {
    match cmd {
        DocsCmd::List => {
            let docs = lib.documents(profile).await?;
            if json {
                return print_json(&docs);
            }
            if docs.is_empty() {
                println!("the library is empty: policypal ingest FILE.pdf");
            }
            for d in docs {
                let mut status = d.status.as_str().to_owned();
                if d.superseded_by.is_some() {
                    status.push_str(", superseded");
                }
                println!(
                    "{}  {:<40} {:<10} {:<14} {:>4} p  {}",
                    d.id,
                    truncate(&d.label(), 40),
                    d.doc_type.as_str(),
                    status,
                    d.page_count,
                    d.set_name.as_deref().unwrap_or("")
                );
            }
            Ok(())
        }
        DocsCmd::Show { id } => {
            let d = lib.document(profile, id).await?;
            if json {
                return print_json(&d);
            }
            let doc = &d.document;
            println!("id:          {}", doc.id);
            println!("title:       {}", doc.title);
            println!("version:     {}", doc.version);
            println!("type:        {}", doc.doc_type.as_str());
            println!("set:         {}", doc.set_name.as_deref().unwrap_or("-"));
            println!("status:      {}", doc.status.as_str());
            if let Some(e) = &doc.error {
                println!("error:       {e}");
            }
            println!(
                "file:        {} (stored at {})",
                doc.file_name,
                d.stored_file.display()
            );
            println!("sha256:      {}", doc.sha256);
            println!(
                "pages:       {} ({} without text)",
                doc.page_count,
                doc.empty_pages.len()
            );
            if let Some(n) = d.extractors.get(crate::ingest::Extractor::Ocr.as_str()) {
                println!("scanned:     {n} of {} pages read by OCR", doc.page_count);
            }
            println!("chunks:      {} indexed", d.indexed_chunks);
            if let Some(s) = &doc.supersedes {
                println!("supersedes:  {s}");
            }
            if let Some(s) = &doc.superseded_by {
                println!("superseded by: {s}");
            }
            Ok(())
        }
        DocsCmd::Delete { id } => {
            lib.delete_document(profile, id).await?;
            if json {
                print_json(&json!({"deleted": id}))
            } else {
                println!("deleted {id}");
                Ok(())
            }
        }
        DocsCmd::Disable { id } | DocsCmd::Enable { id } => {
            let enable = matches!(cmd, DocsCmd::Enable { .. });
            let d = lib.set_enabled(profile, id, enable).await?;
            if json {
                print_json(&d)
            } else {
                println!("{} is {}", d.label(), d.status.as_str());
                Ok(())
            }
        }
    }
}

async fn run_sets(
    lib: &Library,
    profile: &Profile,
    cmd: &SetsCmd,
    json: bool,
) -> Result<(), Error> {
    let store = lib.store();
    let set = match cmd {
        SetsCmd::List => {
            let sets = lib.sets(profile).await?;
            if json {
                return print_json(&sets);
            }
            if sets.is_empty() {
                println!("no sets yet");
            }
            for s in sets {
                println!(
                    "{:<32} {}  {} documents",
                    s.name, s.colour, s.document_count
                );
            }
            return Ok(());
        }
        SetsCmd::Create { name, colour } => {
            lib.create_set(profile, name, colour.as_deref()).await?
        }
        SetsCmd::Rename { old, new } => store.rename_set(&profile.id, old, new).await?,
        SetsCmd::Recolor { name, colour } => lib.recolor_set(profile, name, colour).await?,
    };
    if json {
        print_json(&set)
    } else {
        println!("{} {}", set.name, set.colour);
        Ok(())
    }
}

async fn run_search(
    lib: &Library,
    profile: &Profile,
    args: &SearchArgs,
    json: bool,
) -> Result<(), Error> {
    let req = SearchRequest {
        query: args.query.clone(),
        k: args.k,
        documents: args.docs.clone(),
        set: args.set.clone(),
        doc_type: args.doc_type.map(Into::into),
    };
    let results = lib.search(profile, &req).await?;
    if json {
        return print_json(&results);
    }
    if results.is_empty() {
        println!("no matching passages in the library");
    }
    for (i, r) in results.iter().enumerate() {
        let label = if r.version.is_empty() {
            r.title.clone()
        } else {
            format!("{} ({})", r.title, r.version)
        };
        println!(
            "{}. {} — page {}  [score {:.4}]",
            i + 1,
            label,
            r.page,
            r.hit.score
        );
        if !r.hit.heading.is_empty() {
            println!("   § {}", r.hit.heading);
        }
        let snippet: String = r.hit.text.split_whitespace().collect::<Vec<_>>().join(" ");
        println!("   {}\n", truncate(&snippet, 300));
    }
    Ok(())
}

fn run_keys(dir: &DataDir, cmd: &KeysCmd, json: bool) -> Result<(), Error> {
    match cmd {
        KeysCmd::Set { name, endpoint } => {
            let endpoint = match endpoint {
                Some(e) => e.clone(),
                None => dir.load_settings()?.key_endpoint(name.id())?,
            };
            if std::io::stdin().is_terminal() {
                eprint!("paste the key and press Enter: ");
                let _ = std::io::stderr().flush();
            }
            let mut value = String::new();
            std::io::stdin().read_to_string(&mut value).map_err(|e| {
                Error::InvalidInput(format!("could not read the key from standard input: {e}"))
            })?;
            let value = value.trim();
            if value.is_empty() {
                return Err(Error::InvalidInput("no key on standard input".into()));
            }
            secrets::set(name.id(), &endpoint, value)?;
            let endpoint = secrets::origin(&endpoint).unwrap_or(endpoint);
            if json {
                print_json(
                    &json!({"stored": name.id(), "masked": secrets::masked(value), "endpoint": endpoint}),
                )
            } else {
                println!(
                    "stored {} ({}) for {endpoint}",
                    name.id(),
                    secrets::masked(value)
                );
                Ok(())
            }
        }
        KeysCmd::Show { name } => {
            let v = secrets::get(name.id())?;
            let masked = v.as_ref().map(|k| secrets::masked(&k.key));
            let endpoint = v.and_then(|k| k.endpoint);
            if json {
                print_json(&json!({
                    "name": name.id(),
                    "stored": masked.is_some(),
                    "masked": masked,
                    "endpoint": endpoint,
                }))
            } else {
                println!(
                    "{}: {}{}",
                    name.id(),
                    masked.unwrap_or_else(|| "not set".into()),
                    endpoint.map(|e| format!(" (for {e})")).unwrap_or_default()
                );
                Ok(())
            }
        }
        KeysCmd::Delete { name } => {
            secrets::delete(name.id())?;
            if json {
                print_json(&json!({"deleted": name.id()}))
            } else {
                println!("deleted {}", name.id());
                Ok(())
            }
        }
    }
}

fn run_models(dir: &DataDir, cmd: &ModelsCmd, json: bool) -> Result<(), Error> {
    match cmd {
        ModelsCmd::Add { file } => {
            let (model, info) = crate::models::add(dir, file)?;
            if json {
                print_json(&json!({"model": model, "info": info}))
            } else {
                println!(
                    "added {} ({:.1} B parameters, {:.0} MB, context {} tokens): generative mode now answers with it",
                    model.name,
                    info.parameters as f64 / 1e9,
                    info.bytes as f64 / 1e6,
                    info.context
                );
                Ok(())
            }
        }
        ModelsCmd::List => {
            let models = crate::models::list(dir)?;
            if json {
                return print_json(&models);
            }
            if models.is_empty() {
                println!("no local model (add one with `policypal models add FILE.gguf`)");
            }
            for m in models {
                let actions = if m.actions.is_empty() {
                    "no action".to_owned()
                } else {
                    m.actions.join(", ")
                };
                let missing = if m.present { "" } else { " (file missing)" };
                println!("{}  {}{missing}  [{actions}]", m.name, m.path.display());
            }
            Ok(())
        }
        ModelsCmd::Remove { name } => {
            crate::models::remove(dir, name)?;
            if json {
                print_json(&json!({"removed": name}))
            } else {
                println!("removed {name} (the file was left in place)");
                Ok(())
            }
        }
    }
}

async fn run_bench(dir: &DataDir, cmd: &BenchCmd) -> Result<(), Error> {
    let settings = dir.load_settings()?;
    let model_dir = dir.model_dir(&settings);
    match cmd {
        BenchCmd::Ingest { files, arithmetic } => {
            print_json(&bench::ingest(&model_dir, files, (*arithmetic).into()).await?)
        }
        BenchCmd::Quality { files, arithmetic } => {
            print_json(&bench::quality(&model_dir, files, (*arithmetic).into()).await?)
        }
        BenchCmd::Search {
            chunks,
            source,
            queries,
        } => {
            print_json(&bench::search(&model_dir, source, chunks, *queries, settings.search).await?)
        }
        BenchCmd::Generate {
            model,
            source,
            prompt_tokens,
            max_tokens,
            runs,
        } => print_json(&bench::generate(model, source, *prompt_tokens, *max_tokens, *runs).await?),
        BenchCmd::Actions { .. } | BenchCmd::Ask { .. } => Err(Error::Internal(
            "bench actions and bench ask run on an opened library".into(),
        )),
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Shows ingestion progress: a bar on a terminal, JSON lines on stderr with `--json`; asks the
/// work to stop once `cancel` is set (Ctrl-C).
struct ProgressReporter {
    bar: Option<ProgressBar>,
    json: bool,
    last: Mutex<Option<(Stage, usize)>>,
    cancel: Arc<AtomicBool>,
}

impl ProgressReporter {
    fn new(json: bool, cancel: Arc<AtomicBool>) -> Self {
        let bar = (!json && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(1);
            bar.set_style(
                ProgressStyle::with_template("{prefix:.bold} {msg:<22} [{bar:30}] {pos}/{len}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Self {
            bar,
            json,
            last: Mutex::new(None),
            cancel,
        }
    }

    fn update(&self, p: &Progress) -> Flow {
        if self.cancel.load(Ordering::SeqCst) {
            return Flow::Cancel;
        }
        if let Some(bar) = &self.bar {
            bar.set_prefix(p.file.clone());
            bar.set_message(match p.stage {
                Stage::Reading => "reading",
                Stage::Extracting => "extracting text",
                Stage::Recognising => "recognising scanned pages (OCR)",
                Stage::Chunking => "chunking",
                Stage::Embedding => "embedding chunks",
                Stage::Indexing => "indexing",
                Stage::Done => "done",
            });
            bar.set_length(p.total.max(1) as u64);
            bar.set_position(p.done as u64);
        }
        if self.json {
            let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            if *last != Some((p.stage, p.done)) {
                *last = Some((p.stage, p.done));
                say(&json!({ "progress": p }).to_string());
            }
        }
        Flow::Continue
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn parse_mode(m: Option<&str>) -> Option<Mode> {
    match m {
        Some("generative") => Some(Mode::Generative),
        Some("extractive") => Some(Mode::Extractive),
        _ => None,
    }
}

async fn run_ask(
    lib: &Library,
    profile: &Profile,
    args: &AskArgs,
    json: bool,
) -> Result<(), Error> {
    let agent = Agent::new(lib);
    let req = AskRequest {
        thread_id: args.thread.clone(),
        message_id: args.message_id.clone(),
        text: args.question.clone(),
        documents: args.docs.clone(),
        set: args.set.clone(),
        action: args.action.as_deref().and_then(Action::parse),
        mode: parse_mode(args.mode.as_deref()),
        web: args.web,
    };
    let _ctrl_c = CancelOnCtrlC::new(agent.cancel_handle());
    let turn = agent.ask(profile, req, &|_: &Event| {}).await?;
    print_turn(&turn, json)
}

/// Writes a line to standard error, ignoring a closed or broken stream: a caller that stopped
/// reading our progress (a closed pipe) must not end the work (`eprintln!` panics then).
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Ctrl-C cancels the running work the way the desktop's stop button does: the first press sets
/// the work's cancel flag (it stops at its next check and cleans up after itself, as a cancelled
/// ingestion or run does in the app); a second press quits at once (exit code 130).
struct CancelOnCtrlC(tokio::task::JoinHandle<()>);

impl CancelOnCtrlC {
    fn new(flag: Arc<AtomicBool>) -> Self {
        Self(tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                flag.store(true, Ordering::SeqCst);
                say("cancelling… (Ctrl-C again quits at once)");
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(130);
                }
            }
        }))
    }
}

impl Drop for CancelOnCtrlC {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn print_turn(turn: &TurnResult, json: bool) -> Result<(), Error> {
    if json {
        return print_json(turn);
    }
    println!("{}", turn.answer.text);
    if let Some(report) = &turn.answer.audit {
        println!("\n{}", audit_badges(report));
    }
    if let Some(c) = &turn.answer.confidence {
        let badge = match c.level {
            crate::agent::types::Level::High => "✅ high",
            crate::agent::types::Level::Medium => "⚠️ medium",
            crate::agent::types::Level::Low => "🔴 low",
        };
        println!("\nconfidence: {badge} ({:.2}) — {}", c.score, c.reason);
    }
    if let Some(hit) = &turn.retrieval.cached_from {
        println!(
            "\n⚡ cached: the same question was answered on {} (similarity {:.2}: \"{}\")",
            hit.answered_at, hit.similarity, hit.question
        );
    }
    if matches!(
        turn.answer.status,
        Status::NeedsClarification | Status::Refused
    ) && !turn.answer.options.is_empty()
    {
        println!(
            "\noptions (policypal resume --thread {} --choose ID):",
            turn.thread_id
        );
        for o in &turn.answer.options {
            println!("  {:<40} {}", o.id, o.label);
        }
    }
    println!("\nthread: {}", turn.thread_id);
    Ok(())
}

/// The verdict of an audit and its findings counted by severity, as badges for a terminal
/// ("⛔ Major violations · 🔴 1 high · 🟠 2 medium"), the same marks the desktop app shows.
fn audit_badges(report: &crate::agent::types::AuditReport) -> String {
    use crate::agent::types::{AuditStatus, Severity};
    let verdict = match report.overall_status {
        AuditStatus::Compliant => "✅",
        AuditStatus::MinorIssues => "⚠️",
        AuditStatus::MajorViolations => "⛔",
    };
    let mut parts = vec![format!(
        "verdict: {verdict} {}",
        report.overall_status.label()
    )];
    for (severity, mark) in [
        (Severity::Critical, "🟥"),
        (Severity::High, "🔴"),
        (Severity::Medium, "🟠"),
        (Severity::Low, "🟡"),
    ] {
        let n = report
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .count();
        if n > 0 {
            parts.push(format!("{mark} {n} {}", severity.label().to_lowercase()));
        }
    }
    parts.push(format!(
        "{} statement(s) against {} document(s)",
        report.statements_checked, report.targets_checked
    ));
    parts.join(" · ")
}

async fn run_threads(
    lib: &Library,
    profile: &Profile,
    cmd: &ThreadsCmd,
    json: bool,
) -> Result<(), Error> {
    let store = lib.store();
    let agent = Agent::new(lib);
    match cmd {
        ThreadsCmd::List { all, limit, before } => {
            let cursor = before.as_deref().and_then(|c| c.split_once('|'));
            let list = store
                .conversations(&profile.id, *all, cursor, (*limit).clamp(1, 500))
                .await?;
            let next = (list.len() as u32 == *limit)
                .then(|| list.last().map(|c| format!("{}|{}", c.updated_at, c.id)))
                .flatten();
            if json {
                return print_json(&json!({"threads": list, "next_cursor": next}));
            }
            for c in &list {
                println!(
                    "{}  {}  {}{}",
                    c.id,
                    c.updated_at,
                    c.title,
                    if c.archived { " (archived)" } else { "" }
                );
            }
            if let Some(n) = next {
                println!("more: --before '{n}'");
            }
            Ok(())
        }
        ThreadsCmd::Show { thread } => {
            let v = agent.thread(profile, thread).await?;
            if json {
                return print_json(&v);
            }
            println!("{}", agent.export_markdown(profile, thread).await?);
            Ok(())
        }
        ThreadsCmd::Rename { thread, title } => {
            store
                .rename_conversation(&profile.id, thread, title)
                .await?;
            if json {
                print_json(&json!({"renamed": thread}))
            } else {
                println!("renamed");
                Ok(())
            }
        }
        ThreadsCmd::Archive { thread } => {
            store
                .archive_conversation(&profile.id, thread, true)
                .await?;
            if json {
                print_json(&json!({"archived": thread}))
            } else {
                println!("archived");
                Ok(())
            }
        }
        ThreadsCmd::Export {
            thread,
            format,
            message,
            out,
        } => {
            let view = match message {
                Some(m) => agent.turn_view(profile, thread, m).await?,
                None => agent.thread(profile, thread).await?,
            };
            let body = crate::report::export(&view, &profile.name, *format)?;
            match out {
                Some(path) => std::fs::write(path, &body).map_err(|source| Error::File {
                    path: path.clone(),
                    source,
                }),
                None => {
                    let end: &[u8] = if *format == crate::report::ExportFormat::Pdf {
                        b""
                    } else {
                        b"\n"
                    };
                    let mut stdout = std::io::stdout().lock();
                    stdout
                        .write_all(&body)
                        .and_then(|()| stdout.write_all(end))
                        .map_err(|e| Error::Internal(format!("standard output: {e}")))
                }
            }
        }
    }
}

async fn run_chat(
    lib: &Library,
    profile: &Profile,
    mut thread: Option<String>,
) -> Result<(), Error> {
    use std::io::BufRead;
    let agent = Agent::new(lib);
    eprintln!("PolicyPal chat — type a question, an empty line or Ctrl+D to quit.");
    let stdin = std::io::stdin();
    loop {
        eprint!("> ");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        if stdin
            .lock()
            .read_line(&mut line)
            .map_err(|e| Error::Internal(e.to_string()))?
            == 0
            || line.trim().is_empty()
        {
            return Ok(());
        }
        let req = AskRequest {
            thread_id: thread.clone(),
            text: line.trim().to_owned(),
            ..AskRequest::default()
        };
        let emit = |e: &Event| {
            if let Event::Status { message } = e {
                say(&format!("  … {message}"));
            }
        };
        match agent.ask(profile, req, &emit).await {
            Ok(turn) => {
                thread = Some(turn.thread_id.clone());
                print_turn(&turn, false)?;
            }
            Err(e) => eprintln!("error: {e}"),
        }
    }
}

async fn run_eval(
    lib: &Library,
    questions: &std::path::Path,
    corpus: &std::path::Path,
    out: &std::path::Path,
    signals: Option<&std::path::Path>,
    hits: Option<&std::path::Path>,
    mode: Mode,
) -> Result<(), Error> {
    let text = std::fs::read_to_string(questions).map_err(|source| Error::File {
        path: questions.to_path_buf(),
        source,
    })?;
    let items: Vec<crate::eval::Item> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l)
                .map_err(|e| Error::InvalidInput(format!("{}: {e}", questions.display())))
        })
        .collect::<Result<_, _>>()?;
    let profile = lib.ensure_profile("eval").await?;
    say(&format!("ingesting the corpus in {}", corpus.display()));
    let by_name = crate::eval::ingest_corpus(lib, &profile, corpus).await?;
    // Every item is answered afresh: the evaluation measures the engine, not the cache.
    let agent = Agent::new(lib).without_cache();
    let mut lines = Vec::new();
    let mut signal_lines = Vec::new();
    let mut hit_lines = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let v = crate::eval::run_item(&agent, &profile, item, &by_name, mode).await;
        say(&format!(
            "[{}/{}] {} → {}",
            i + 1,
            items.len(),
            item.id,
            v["status"]
        ));
        lines.push(v.to_string());
        if signals.is_some()
            && let Some(s) = crate::eval::signals_line(&agent, &profile, item, &by_name).await?
        {
            signal_lines.push(s.to_string());
        }
        if hits.is_some()
            && let Some(h) = crate::eval::hits_line(lib, &profile, item, &by_name).await?
        {
            hit_lines.push(h.to_string());
        }
    }
    std::fs::write(out, lines.join("\n") + "\n").map_err(|source| Error::File {
        path: out.to_path_buf(),
        source,
    })?;
    for (path, lines) in [(signals, signal_lines), (hits, hit_lines)] {
        if let Some(path) = path {
            std::fs::write(path, lines.join("\n") + "\n").map_err(|source| Error::File {
                path: path.to_path_buf(),
                source,
            })?;
        }
    }
    say(&format!("wrote {}", out.display()));
    Ok(())
}
