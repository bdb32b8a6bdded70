//! The desktop app's operations, one per IPC command, over the same core calls as the CLI.
//!
//! Owns: [`Desk`] (the opened library, the active profile, cancel flags of running work) and
//! the small typed payloads the UI exchanges. Each method is a short adapter over a core call
//! so it can be tested without a window. Must not: know Tauri (that is `commands`), hold
//! library logic, or return secrets in full.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use policypal::agent::review::{ExpertReply, ReviewFile, ReviewSummary};
use policypal::agent::types::{Action, AskRequest, Event, TurnResult};
use policypal::agent::{Agent, ThreadView};
use policypal::config::{DataDir, EmbedderSettings, Settings};
use policypal::library::{IngestRequest, Progress, Stage};
use policypal::llm::LlmSettings;
use policypal::onboarding::SampleDocument;
use policypal::store::{Conversation, DocSet, Document, Profile, UserContext};
use policypal::{Error, Flow, Library, secrets};
use serde::{Deserialize, Serialize};
use tokio::sync::RwLock;

use crate::error::{IpcError, IpcResult};

/// Where the active profile's name is remembered between launches.
/// Most conversations listed at once.
const THREAD_LIST_LIMIT: u32 = 500;

/// The app's state: one library, one active profile, and the cancel flags of running work.
pub struct Desk {
    dir: DataDir,
    lib: RwLock<Option<Arc<Library>>>,
    startup_error: Mutex<Option<String>>,
    profile: RwLock<Option<Profile>>,
    runs: Mutex<HashMap<String, Arc<AtomicBool>>>,
    ingests: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// One ingestion embeds at a time: on two cores parallel embedding is slower per file, and
    /// queued files show as waiting instead of all crawling.
    ingest_queue: tokio::sync::Mutex<()>,
    /// Files the app was started with ("Open with PolicyPal" on a PDF), until the UI takes them.
    opened: Mutex<Vec<PathBuf>>,
}

/// What the UI needs at start-up.
#[derive(Debug, Clone, Serialize)]
pub struct AppInfo {
    /// The data directory in use.
    pub data_dir: String,
    /// Where the embedding model is looked for.
    pub model_dir: String,
    /// Whether the embedding model files are there.
    pub model_installed: bool,
    /// The active profile.
    pub profile: Profile,
    /// All profiles.
    pub profiles: Vec<Profile>,
    /// True when a language model is configured (answers default to generative).
    pub llm_configured: bool,
    /// True when web search is switched on (the @web pill is offered).
    pub web_enabled: bool,
    /// The first start of the app on this library: show the onboarding.
    pub first_run: bool,
}

/// A file to add to the library, as the upload dialog fills it in.
#[derive(Debug, Clone, Deserialize)]
pub struct IngestArgs {
    /// Client-chosen id of this job (progress events and cancel refer to it).
    pub job_id: String,
    /// The file and its labels.
    #[serde(flatten)]
    pub request: IngestRequest,
}

/// Progress of one ingestion job, as emitted to the UI.
#[derive(Debug, Clone, Serialize)]
pub struct IngestEvent {
    /// The job.
    pub job_id: String,
    /// What happens now.
    pub phase: IngestPhase,
    /// Units done in this stage.
    pub done: usize,
    /// Units in this stage.
    pub total: usize,
}

/// Phases of a job the UI shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IngestPhase {
    /// Waiting for the ingestion before it.
    Queued,
    /// A core stage.
    Stage(Stage),
}

/// A message to answer, as the chat input sends it.
#[derive(Debug, Clone, Deserialize)]
pub struct AskArgs {
    /// Client-chosen id of this run (the stop button cancels it).
    pub run_key: String,
    /// The message: text, pill ids (never parsed back from the text), thread, mode.
    #[serde(flatten)]
    pub request: AskRequest,
}

/// One page's text around a cited quote.
pub use policypal::agent::evidence::QuoteOnPage as PageText;

/// The answering mode as the settings screen shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerMode {
    /// No model: verbatim sentences.
    Extractive,
    /// OpenAI's API.
    Openai,
    /// A local OpenAI-compatible server (Ollama, llama-server, vLLM).
    Local,
    /// A GGUF model file run inside the app (no server, no network).
    File,
}

/// Settings the UI edits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiSettings {
    /// Answering mode.
    pub mode: AnswerMode,
    /// Base URL of the local server (mode `local`).
    pub base_url: String,
    /// Model per action (`inquire`, `summarize`, `compare`, `audit`).
    pub models: HashMap<String, String>,
    /// Web search may be used (off by default).
    #[serde(default)]
    pub web_search: bool,
    /// The GGUF file (mode `file`).
    #[serde(default)]
    pub model_file: String,
    /// Scanned pages are read with OCR.
    #[serde(default = "on")]
    pub ocr: bool,
    /// OCR language (a Tesseract code such as `eng`).
    #[serde(default)]
    pub ocr_language: String,
    /// The OCR languages installed (shown; ignored when saving).
    #[serde(default)]
    pub ocr_installed: Vec<String>,
    /// Why OCR cannot run here, when it cannot (shown; ignored when saving).
    #[serde(default)]
    pub ocr_problem: Option<String>,
}

fn on() -> bool {
    true
}

/// OpenAI's API.
const OPENAI_URL: &str = "https://api.openai.com/v1";

impl Desk {
    /// Opens the library in `dir`. Never fails: a library that cannot be opened is reported by
    /// every command as `not_ready` with the reason, so the window can say what is wrong.
    pub async fn open(dir: DataDir) -> Self {
        let desk = Self {
            dir: dir.clone(),
            lib: RwLock::new(None),
            startup_error: Mutex::new(None),
            profile: RwLock::new(None),
            runs: Mutex::new(HashMap::new()),
            ingests: Mutex::new(HashMap::new()),
            ingest_queue: tokio::sync::Mutex::new(()),
            opened: Mutex::new(Vec::new()),
        };
        match Library::open(dir).await {
            Ok(lib) => {
                let lib = Arc::new(lib);
                match lib.active_profile().await {
                    Ok(p) => *desk.profile.write().await = Some(p),
                    Err(e) => desk.fail(&e),
                }
                *desk.lib.write().await = Some(lib);
            }
            Err(e) => desk.fail(&e),
        }
        desk
    }

    /// Files the app was started with, offered to the upload dialog once.
    pub fn with_opened_files(self, paths: Vec<PathBuf>) -> Self {
        if let Ok(mut o) = self.opened.lock() {
            *o = paths;
        }
        self
    }

    /// Takes the files the app was started with (empty on every later call).
    pub fn take_opened_files(&self) -> Vec<String> {
        let taken = self
            .opened
            .lock()
            .map(|mut o| std::mem::take(&mut *o))
            .unwrap_or_default();
        taken
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    }

    fn fail(&self, e: &Error) {
        tracing::error!(error = %e, "the library could not be opened");
        if let Ok(mut s) = self.startup_error.lock() {
            *s = Some(format!("The library could not be opened: {e}"));
        }
    }

    /// The library, or why there is none.
    pub async fn library(&self) -> IpcResult<Arc<Library>> {
        if let Some(l) = self.lib.read().await.as_ref() {
            return Ok(l.clone());
        }
        let why = self
            .startup_error
            .lock()
            .ok()
            .and_then(|s| s.clone())
            .unwrap_or_else(|| "the library is not open".into());
        Err(IpcError::not_ready(why))
    }

    /// The active profile.
    pub async fn profile(&self) -> IpcResult<Profile> {
        self.library().await?;
        self.profile
            .read()
            .await
            .clone()
            .ok_or_else(|| IpcError::not_ready("no profile is active"))
    }

    /// Closes the database (on exit).
    pub async fn close(&self) {
        if let Some(l) = self.lib.read().await.as_ref() {
            l.close().await;
        }
    }

    // ------------------------------------------------------------------ app and profiles

    /// Start-up information.
    pub async fn info(&self) -> IpcResult<AppInfo> {
        let lib = self.library().await?;
        let model_dir = self.dir.model_dir(lib.settings());
        Ok(AppInfo {
            data_dir: self.dir.root().display().to_string(),
            model_installed: model_dir.join("model.safetensors").is_file()
                || !matches!(lib.settings().embedder, EmbedderSettings::Local { .. }),
            model_dir: model_dir.display().to_string(),
            profile: self.profile().await?,
            profiles: lib.store().profiles().await?,
            llm_configured: lib.settings().llm.is_some(),
            web_enabled: lib.settings().web.enabled,
            first_run: policypal::onboarding::is_first_run(&lib).await?,
        })
    }

    /// Completes the first-run onboarding for the active profile.
    pub async fn finish_onboarding(&self, name: &str, context: &UserContext) -> IpcResult<Profile> {
        let lib = self.library().await?;
        let current = self.profile().await?;
        let p = policypal::onboarding::finish(&lib, &current, name, context).await?;
        *self.profile.write().await = Some(p.clone());
        Ok(p)
    }

    /// Dismisses the first-run onboarding without changes.
    pub async fn skip_onboarding(&self) -> IpcResult<()> {
        Ok(policypal::onboarding::skip(&*self.library().await?).await?)
    }

    /// Writes the sample document into the data directory and returns it, for the window to
    /// add it like any dropped file and suggest a question it answers.
    pub async fn sample_document(&self) -> IpcResult<SampleDocument> {
        Ok(policypal::onboarding::sample(&self.dir).await?)
    }

    /// Creates a profile and makes it active.
    pub async fn create_profile(&self, name: &str, context: &UserContext) -> IpcResult<Profile> {
        let lib = self.library().await?;
        let p = lib.store().create_profile(name, context).await?;
        self.activate(&lib, p).await
    }

    /// Makes another profile active.
    pub async fn switch_profile(&self, id: &str) -> IpcResult<Profile> {
        let lib = self.library().await?;
        let p = lib.profile(id).await?;
        self.activate(&lib, p).await
    }

    async fn activate(&self, lib: &Library, p: Profile) -> IpcResult<Profile> {
        lib.set_active_profile(&p).await?;
        *self.profile.write().await = Some(p.clone());
        Ok(p)
    }

    /// Changes the active profile's user context.
    pub async fn update_profile(&self, context: &UserContext) -> IpcResult<Profile> {
        let lib = self.library().await?;
        let p = self.profile().await?;
        let p = lib.store().update_profile(&p.id, context).await?;
        *self.profile.write().await = Some(p.clone());
        Ok(p)
    }

    /// Switches PII redaction for the active profile and sets the names to redact.
    pub async fn set_privacy(&self, redact_pii: bool, names: &[String]) -> IpcResult<Profile> {
        let lib = self.library().await?;
        let p = self.profile().await?;
        let p = lib.store().set_privacy(&p.id, redact_pii, names).await?;
        *self.profile.write().await = Some(p.clone());
        Ok(p)
    }

    // ------------------------------------------------------------------ library

    /// Documents of the active profile.
    pub async fn documents(&self) -> IpcResult<Vec<Document>> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(lib.documents(&p).await?)
    }

    /// Sets of the active profile.
    pub async fn sets(&self) -> IpcResult<Vec<DocSet>> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(lib.sets(&p).await?)
    }

    /// Ingests one PDF, reporting progress; queued behind any ingestion already running.
    pub async fn ingest(
        &self,
        args: IngestArgs,
        report: &(dyn Fn(IngestEvent) + Send + Sync),
    ) -> IpcResult<Document> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        let cancel = Arc::new(AtomicBool::new(false));
        if let Ok(mut m) = self.ingests.lock() {
            m.insert(args.job_id.clone(), cancel.clone());
        }
        report(IngestEvent {
            job_id: args.job_id.clone(),
            phase: IngestPhase::Queued,
            done: 0,
            total: 0,
        });
        let result = async {
            let _turn = self.ingest_queue.lock().await;
            if cancel.load(Ordering::SeqCst) {
                return Err(Error::Cancelled.into());
            }
            // The dialog sends empty fields for "not given".
            let given = |v: &Option<String>| v.clone().filter(|t| !t.trim().is_empty());
            let r = &args.request;
            let req = IngestRequest {
                title: given(&r.title),
                version: given(&r.version),
                set: given(&r.set),
                supersedes: given(&r.supersedes),
                ..r.clone()
            };
            let progress = |pr: &Progress| {
                report(IngestEvent {
                    job_id: args.job_id.clone(),
                    phase: IngestPhase::Stage(pr.stage),
                    done: pr.done,
                    total: pr.total,
                });
                if cancel.load(Ordering::SeqCst) {
                    Flow::Cancel
                } else {
                    Flow::Continue
                }
            };
            Ok::<_, IpcError>(lib.ingest(&p, &req, &progress).await?.document)
        }
        .await;
        if let Ok(mut m) = self.ingests.lock() {
            m.remove(&args.job_id);
        }
        result
    }

    /// Asks a running or queued ingestion to stop; false when no such job runs.
    pub fn cancel_ingest(&self, job_id: &str) -> bool {
        self.ingests
            .lock()
            .ok()
            .and_then(|m| m.get(job_id).cloned())
            .map(|c| c.store(true, Ordering::SeqCst))
            .is_some()
    }

    /// Deletes a document with its chunks and stored file.
    pub async fn delete_document(&self, id: &str) -> IpcResult<()> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(lib.delete_document(&p, id).await?)
    }

    /// Creates a set in the active profile with a colour of the palette.
    pub async fn create_set(&self, name: &str, colour: &str) -> IpcResult<DocSet> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(lib.create_set(&p, name, Some(colour)).await?)
    }

    /// Gives a set of the active profile another colour of the palette.
    pub async fn recolor_set(&self, name: &str, colour: &str) -> IpcResult<DocSet> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(lib.recolor_set(&p, name, colour).await?)
    }

    /// The colours a set may have.
    pub fn palette(&self) -> Vec<String> {
        policypal::store::PALETTE
            .iter()
            .map(|c| (*c).to_owned())
            .collect()
    }

    /// Disables or re-enables a document.
    pub async fn set_enabled(&self, id: &str, enabled: bool) -> IpcResult<Document> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(lib.set_enabled(&p, id, enabled).await?)
    }

    /// The stored copy of a document's PDF.
    pub async fn document_file(&self, id: &str) -> IpcResult<PathBuf> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        let d = lib.store().document(&p.id, id).await?;
        let path = self.dir.document_file(&p.id, &d.id);
        if !path.is_file() {
            return Err(Error::File {
                path,
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            }
            .into());
        }
        Ok(path)
    }

    /// The stored PDF's bytes.
    pub async fn document_bytes(&self, id: &str) -> IpcResult<Vec<u8>> {
        let path = self.document_file(id).await?;
        tokio::fs::read(&path)
            .await
            .map_err(|source| Error::File { path, source }.into())
    }

    /// The stored text of one page, split around `quote` with the same tolerant matcher that
    /// verified the citation (the page view highlights the middle part), with the quote's word
    /// boxes on a scanned page.
    pub async fn page_text(&self, id: &str, page: u32, quote: &str) -> IpcResult<PageText> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(policypal::agent::evidence::quote_on_page(&lib, &p, id, page, quote).await?)
    }

    // ------------------------------------------------------------------ agent

    /// Answers a message, streaming events; the stop button cancels it through `run_key`.
    pub async fn ask(
        &self,
        args: AskArgs,
        emit: &(dyn Fn(&Event) + Send + Sync),
    ) -> IpcResult<TurnResult> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        let agent = Agent::new(&lib);
        let _run = self.track(&args.run_key, agent.cancel_handle());
        Ok(agent.ask(&p, args.request, emit).await?)
    }

    /// Answers an open question of a thread (clarification, low confidence) with `choice`, or
    /// finishes a run that stopped before its end.
    pub async fn resume(
        &self,
        run_key: &str,
        thread_id: &str,
        choice: Option<&str>,
        emit: &(dyn Fn(&Event) + Send + Sync),
    ) -> IpcResult<TurnResult> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        let agent = Agent::new(&lib);
        let _run = self.track(run_key, agent.cancel_handle());
        Ok(agent.resume(&p, thread_id, choice, emit).await?)
    }

    fn track(&self, key: &str, flag: Arc<AtomicBool>) -> RunTicket<'_> {
        if let Ok(mut m) = self.runs.lock() {
            m.insert(key.to_owned(), flag);
        }
        RunTicket {
            runs: &self.runs,
            key: key.to_owned(),
        }
    }

    /// Cancels a run; false when it is not running.
    pub fn cancel_run(&self, run_key: &str) -> bool {
        self.runs
            .lock()
            .ok()
            .and_then(|m| m.get(run_key).cloned())
            .map(|c| c.store(true, Ordering::SeqCst))
            .is_some()
    }

    // ------------------------------------------------------------------ history

    /// Conversations, newest first, optionally filtered by words of their title or preview.
    pub async fn threads(
        &self,
        archived: bool,
        query: Option<&str>,
    ) -> IpcResult<Vec<Conversation>> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        let list = lib
            .store()
            .conversations(&p.id, archived, None, THREAD_LIST_LIMIT)
            .await?;
        let words: Vec<String> = query
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        Ok(list
            .into_iter()
            .filter(|c| {
                let hay = format!(
                    "{} {}",
                    c.title.to_lowercase(),
                    c.preview.as_deref().unwrap_or_default().to_lowercase()
                );
                words.iter().all(|w| hay.contains(w))
            })
            .collect())
    }

    /// A conversation with every message, citation, confidence and option (no model needed).
    pub async fn thread(&self, id: &str) -> IpcResult<ThreadView> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(Agent::new(&lib).thread(&p, id).await?)
    }

    /// Renames a conversation.
    pub async fn rename_thread(&self, id: &str, title: &str) -> IpcResult<()> {
        if title.trim().is_empty() {
            return Err(IpcError::invalid("a conversation needs a title"));
        }
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(lib.store().rename_conversation(&p.id, id, title).await?)
    }

    /// Archives or restores a conversation.
    pub async fn archive_thread(&self, id: &str, archived: bool) -> IpcResult<()> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(lib
            .store()
            .archive_conversation(&p.id, id, archived)
            .await?)
    }

    /// The active profile's review inbox (every profile's requests for a reviewer).
    pub async fn reviews(&self, all: bool) -> IpcResult<Vec<ReviewSummary>> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(Agent::new(&lib).reviews(&p, all).await?)
    }

    /// The active (reviewer) profile answers a request; the asking profile's turn.
    pub async fn answer_review(&self, id: &str, reply: &ExpertReply) -> IpcResult<TurnResult> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(Agent::new(&lib)
            .answer_review(&p, id, reply, &|_: &Event| {})
            .await?)
    }

    /// A request as the JSON file a colleague fills in.
    pub async fn review_file(&self, id: &str) -> IpcResult<String> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        let file = Agent::new(&lib).review_file(&p, id).await?;
        serde_json::to_string_pretty(&file)
            .map_err(|e| IpcError::from(policypal::Error::Internal(e.to_string())))
    }

    /// Imports a colleague's filled-in review file.
    pub async fn import_review(&self, path: &std::path::Path) -> IpcResult<TurnResult> {
        let lib = self.library().await?;
        let file = ReviewFile::read(path)?;
        Ok(Agent::new(&lib)
            .import_review(&file, &|_: &Event| {})
            .await?)
    }

    /// The active profile withdraws one of its requests.
    pub async fn withdraw_review(&self, id: &str) -> IpcResult<TurnResult> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        Ok(Agent::new(&lib)
            .withdraw_review(&p, id, &|_: &Event| {})
            .await?)
    }

    /// Marks the active profile as a reviewer (or not).
    pub async fn set_reviewer(&self, on: bool) -> IpcResult<Profile> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        lib.store()
            .set_reviewer(&p.id, on)
            .await
            .map_err(policypal::Error::from)?;
        let p = lib.profile(&p.id).await?;
        *self.profile.write().await = Some(p.clone());
        Ok(p)
    }

    /// A conversation (or one answer) as Markdown, JSON or a PDF report.
    pub async fn export_thread(
        &self,
        id: &str,
        message_id: Option<&str>,
        format: ExportFormat,
    ) -> IpcResult<Vec<u8>> {
        let (lib, p) = (self.library().await?, self.profile().await?);
        let agent = Agent::new(&lib);
        let view = match message_id {
            Some(m) => agent.turn_view(&p, id, m).await?,
            None => agent.thread(&p, id).await?,
        };
        Ok(policypal::report::export(&view, &p.name, format)?)
    }

    // ------------------------------------------------------------------ settings and keys

    /// The settings the UI edits.
    pub async fn settings(&self) -> IpcResult<UiSettings> {
        let lib = self.library().await?;
        Ok(ui_settings(lib.settings()))
    }

    /// Saves the settings and reopens the library with them (the loaded model is kept).
    pub async fn save_settings(&self, s: UiSettings) -> IpcResult<UiSettings> {
        let old = self.library().await?;
        // A model file is checked (a GGUF with a chat template) before anything is written,
        // and registered the way `models add` does, in the same write as the rest.
        let model_file = match s.mode {
            AnswerMode::File if s.model_file.trim().is_empty() => {
                return Err(IpcError::invalid("choose a model file (.gguf) first"));
            }
            AnswerMode::File => Some(policypal::models::check(std::path::Path::new(
                s.model_file.trim(),
            ))?),
            _ => None,
        };
        let settings = self.dir.update_settings(|settings| {
            settings.llm = match s.mode {
                AnswerMode::Extractive => None,
                AnswerMode::File => {
                    if let Some(checked) = &model_file {
                        policypal::models::register(settings, checked);
                    }
                    settings.llm.take()
                }
                AnswerMode::Openai | AnswerMode::Local => {
                    let mut llm = settings.llm.clone().unwrap_or_default();
                    llm.base_url = if s.mode == AnswerMode::Openai {
                        OPENAI_URL.into()
                    } else {
                        let url = s.base_url.trim();
                        if !(url.starts_with("http://") || url.starts_with("https://")) {
                            return Err(IpcError::invalid(
                                "the server URL must start with http:// or https:// (for example http://127.0.0.1:11434/v1)",
                            ));
                        }
                        url.trim_end_matches('/').to_owned()
                    };
                    for (action, model) in &s.models {
                        if Action::parse(action).is_none() {
                            return Err(IpcError::invalid(format!("unknown action {action:?}")));
                        }
                        if !model.trim().is_empty() {
                            llm.models.insert(action.clone(), model.trim().to_owned());
                        }
                    }
                    Some(llm)
                }
            };
            settings.web.enabled = s.web_search;
            settings.ocr.enabled = s.ocr;
            let language = s.ocr_language.trim();
            if !language.is_empty() {
                if !policypal::ingest::ocr::is_language_code(language) {
                    return Err(IpcError::invalid(format!(
                        "{language:?} is not a Tesseract language code (such as eng, or deu+eng)"
                    )));
                }
                language.clone_into(&mut settings.ocr.language);
            }
            Ok::<_, IpcError>(settings.clone())
        })?;
        let mut guard = self.lib.write().await;
        let mut fresh = Library::open(self.dir.clone()).await?;
        if let Ok(e) = old.embedder().await {
            fresh = fresh.with_embedder(e);
        }
        *guard = Some(Arc::new(fresh));
        Ok(ui_settings(&settings))
    }

    /// A stored key, masked; `None` when there is none.
    pub fn key_status(&self, name: &str) -> IpcResult<Option<String>> {
        Ok(secrets::get(name)?.map(|k| secrets::masked(&k.key)))
    }

    /// Stores a key in the OS keychain, bound to the endpoint the settings send it to; returns
    /// it masked.
    pub fn set_key(&self, name: &str, value: &str) -> IpcResult<String> {
        let value = value.trim();
        if value.is_empty() {
            return Err(IpcError::invalid("the key is empty"));
        }
        let endpoint = self.dir.load_settings()?.key_endpoint(name)?;
        secrets::set(name, &endpoint, value)?;
        Ok(secrets::masked(value))
    }

    /// Removes a key from the keychain.
    pub fn delete_key(&self, name: &str) -> IpcResult<()> {
        Ok(secrets::delete(name)?)
    }
}

/// A web link from an answer that may be handed to the browser: http(s) only, no spaces or
/// control characters (a PDF's text can contain anything).
pub fn checked_link(url: &str) -> IpcResult<&str> {
    let lower = url.to_ascii_lowercase();
    let scheme_ok = lower.starts_with("https://") || lower.starts_with("http://");
    let host_ok = url
        .split_once("://")
        .is_some_and(|(_, rest)| !rest.is_empty() && !rest.starts_with('/'));
    if !scheme_ok || !host_ok || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(IpcError::invalid(
            "only web links (http or https) can be opened from an answer",
        ));
    }
    Ok(url)
}

/// Export formats (the core's).
pub use policypal::report::ExportFormat;

/// Removes a run's cancel flag when the run ends, however it ends.
struct RunTicket<'a> {
    runs: &'a Mutex<HashMap<String, Arc<AtomicBool>>>,
    key: String,
}

impl Drop for RunTicket<'_> {
    fn drop(&mut self) {
        if let Ok(mut m) = self.runs.lock() {
            m.remove(&self.key);
        }
    }
}

fn ui_settings(s: &Settings) -> UiSettings {
    let web_search = s.web.enabled;
    let (ocr, ocr_language) = (s.ocr.enabled, s.ocr.language.clone());
    let (ocr_installed, ocr_problem) = match policypal::ingest::ocr::check(&s.ocr.language) {
        Ok(installed) => (installed, None),
        Err(why) => (
            policypal::ingest::ocr::languages().unwrap_or_default(),
            Some(why),
        ),
    };
    match &s.llm {
        None => UiSettings {
            mode: AnswerMode::Extractive,
            base_url: "http://127.0.0.1:11434/v1".into(),
            models: LlmSettings::default().models,
            web_search,
            model_file: String::new(),
            ocr,
            ocr_language,
            ocr_installed,
            ocr_problem,
        },
        Some(l) => {
            // Questions answered by a model file: the file mode.
            let file = l.local_model(&l.model_for("inquire"));
            UiSettings {
                mode: if file.is_some() {
                    AnswerMode::File
                } else if l.base_url.trim_end_matches('/') == OPENAI_URL {
                    AnswerMode::Openai
                } else {
                    AnswerMode::Local
                },
                base_url: l.base_url.clone(),
                models: l.models.clone(),
                web_search,
                model_file: file.map(|f| f.display().to_string()).unwrap_or_default(),
                ocr,
                ocr_language,
                ocr_installed,
                ocr_problem,
            }
        }
    }
}
