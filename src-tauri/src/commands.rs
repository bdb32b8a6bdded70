//! IPC commands: one-screen adapters from Tauri to [`Desk`].
//!
//! Owns: argument plumbing, the Channel that streams agent events, the events the window
//! listens to (`ingest-progress`, `library-changed`), and the native dialogs. Must not: hold
//! logic; anything worth testing lives in `api`.

use policypal::agent::ThreadView;
use policypal::agent::review::{ExpertReply, ReviewSummary};
use policypal::agent::types::{Event, TurnResult};
use policypal::onboarding::SampleDocument;
use policypal::store::{Conversation, DocSet, Document, Profile, UserContext};
use tauri::ipc::Channel;
use tauri::{AppHandle, Emitter, State};
use tauri_plugin_dialog::DialogExt;

use crate::api::{
    AppInfo, AskArgs, Desk, ExportFormat, IngestArgs, IngestEvent, PageText, UiSettings,
};
use crate::error::{IpcError, IpcResult};

/// Event name of ingestion progress ([`IngestEvent`] payloads).
pub const INGEST_PROGRESS: &str = "ingest-progress";
/// Event name sent after documents were added, removed, enabled or disabled.
pub const LIBRARY_CHANGED: &str = "library-changed";

/// Streams agent events to the window; a closed window only loses the stream, not the run.
fn forward(events: &Channel<Event>) -> impl Fn(&Event) + Send + Sync + '_ {
    move |e: &Event| {
        if let Err(err) = events.send(e.clone()) {
            tracing::warn!(error = %err, "could not stream an event");
        }
    }
}

fn changed(app: &AppHandle) {
    if let Err(e) = app.emit(LIBRARY_CHANGED, ()) {
        tracing::warn!(error = %e, "could not notify the window");
    }
}

/// Start-up information: data directory, model status, profiles.
#[tauri::command]
pub async fn app_info(desk: State<'_, Desk>) -> IpcResult<AppInfo> {
    desk.info().await
}

/// The files the app was started with ("Open with PolicyPal"), once; empty afterwards.
#[tauri::command]
pub fn opened_files(desk: State<'_, Desk>) -> Vec<String> {
    desk.take_opened_files()
}

/// Creates a profile and switches to it.
#[tauri::command]
pub async fn profile_create(
    desk: State<'_, Desk>,
    name: String,
    organisation: Option<String>,
    industry: String,
    location: String,
) -> IpcResult<Profile> {
    let context = UserContext {
        organisation: organisation.unwrap_or_default(),
        industry,
        location,
    };
    desk.create_profile(&name, &context).await
}

/// Switches to another profile.
#[tauri::command]
pub async fn profile_switch(desk: State<'_, Desk>, id: String) -> IpcResult<Profile> {
    desk.switch_profile(&id).await
}

/// Changes the active profile's user context.
#[tauri::command]
pub async fn profile_update(
    desk: State<'_, Desk>,
    organisation: Option<String>,
    industry: String,
    location: String,
) -> IpcResult<Profile> {
    let context = UserContext {
        organisation: organisation.unwrap_or_default(),
        industry,
        location,
    };
    desk.update_profile(&context).await
}

/// Completes the first-run onboarding with the profile's name and user context.
#[tauri::command]
pub async fn onboarding_finish(
    desk: State<'_, Desk>,
    name: String,
    organisation: String,
    industry: String,
    location: String,
) -> IpcResult<Profile> {
    let context = UserContext {
        organisation,
        industry,
        location,
    };
    desk.finish_onboarding(&name, &context).await
}

/// Dismisses the first-run onboarding.
#[tauri::command]
pub async fn onboarding_skip(desk: State<'_, Desk>) -> IpcResult<()> {
    desk.skip_onboarding().await
}

/// The sample document's path (written into the data directory), to add like a dropped file.
#[tauri::command]
pub async fn sample_document(desk: State<'_, Desk>) -> IpcResult<SampleDocument> {
    desk.sample_document().await
}

/// Switches PII redaction for the active profile.
#[tauri::command]
pub async fn profile_privacy(
    desk: State<'_, Desk>,
    redact_pii: bool,
    names: Vec<String>,
) -> IpcResult<Profile> {
    desk.set_privacy(redact_pii, &names).await
}

/// The active profile's documents.
#[tauri::command]
pub async fn documents_list(desk: State<'_, Desk>) -> IpcResult<Vec<Document>> {
    desk.documents().await
}

/// The active profile's sets.
#[tauri::command]
pub async fn sets_list(desk: State<'_, Desk>) -> IpcResult<Vec<DocSet>> {
    desk.sets().await
}

/// Creates a set with a colour of the palette (the upload dialog, before the files that go into
/// it are added).
#[tauri::command]
pub async fn set_create(desk: State<'_, Desk>, name: String, colour: String) -> IpcResult<DocSet> {
    desk.create_set(&name, &colour).await
}

/// Gives a set another colour of the palette.
#[tauri::command]
pub async fn set_recolor(desk: State<'_, Desk>, name: String, colour: String) -> IpcResult<DocSet> {
    desk.recolor_set(&name, &colour).await
}

/// The colours a set may have.
#[tauri::command]
pub fn sets_palette(desk: State<'_, Desk>) -> Vec<String> {
    desk.palette()
}

/// Adds a PDF; progress goes out as `ingest-progress` events.
#[tauri::command]
pub async fn document_ingest(
    app: AppHandle,
    desk: State<'_, Desk>,
    args: IngestArgs,
) -> IpcResult<Document> {
    let emitter = app.clone();
    let report = move |e: IngestEvent| {
        if let Err(err) = emitter.emit(INGEST_PROGRESS, e) {
            tracing::warn!(error = %err, "could not send ingestion progress");
        }
    };
    let out = desk.ingest(args, &report).await;
    changed(&app);
    out
}

/// Stops a running or queued ingestion.
#[tauri::command]
pub fn ingest_cancel(desk: State<'_, Desk>, job_id: String) -> bool {
    desk.cancel_ingest(&job_id)
}

/// Deletes a document.
#[tauri::command]
pub async fn document_delete(app: AppHandle, desk: State<'_, Desk>, id: String) -> IpcResult<()> {
    desk.delete_document(&id).await?;
    changed(&app);
    Ok(())
}

/// Disables or re-enables a document.
#[tauri::command]
pub async fn document_set_enabled(
    app: AppHandle,
    desk: State<'_, Desk>,
    id: String,
    enabled: bool,
) -> IpcResult<Document> {
    let d = desk.set_enabled(&id, enabled).await?;
    changed(&app);
    Ok(d)
}

/// Opens a document's stored PDF in the system viewer.
#[tauri::command]
pub async fn document_open(desk: State<'_, Desk>, id: String) -> IpcResult<()> {
    let path = desk.document_file(&id).await?;
    tauri_plugin_opener::open_path(&path, None::<&str>).map_err(|e| {
        IpcError::from(policypal::Error::InvalidInput(format!(
            "no PDF viewer could open the document: {e}"
        )))
    })
}

/// The stored PDF itself, as raw bytes (the in-app viewer renders the cited page).
#[tauri::command]
pub async fn document_pdf(desk: State<'_, Desk>, id: String) -> IpcResult<tauri::ipc::Response> {
    Ok(tauri::ipc::Response::new(desk.document_bytes(&id).await?))
}

/// Opens a web link from an answer in the default browser (http and https only).
#[tauri::command]
pub fn open_link(url: String) -> IpcResult<()> {
    let url = crate::api::checked_link(&url)?;
    tauri_plugin_opener::open_url(url, None::<&str>).map_err(|e| {
        IpcError::from(policypal::Error::InvalidInput(format!(
            "no browser could open the link: {e}"
        )))
    })
}

/// The stored text of one page, split around a quote.
#[tauri::command]
pub async fn page_text(
    desk: State<'_, Desk>,
    id: String,
    page: u32,
    quote: String,
) -> IpcResult<PageText> {
    desk.page_text(&id, page, &quote).await
}

/// Shows the file picker for a model file (GGUF); returns the chosen path.
#[tauri::command]
pub async fn pick_model_file(app: AppHandle) -> Option<String> {
    tauri::async_runtime::spawn_blocking(move || {
        app.dialog()
            .file()
            .set_title("Choose a model file")
            .add_filter("GGUF models", &["gguf", "GGUF"])
            .blocking_pick_file()
    })
    .await
    .ok()
    .flatten()
    .and_then(|f| f.into_path().ok())
    .map(|p| p.display().to_string())
}

/// Shows the file picker for PDFs; returns the chosen paths.
#[tauri::command]
pub async fn pick_pdfs(app: AppHandle) -> Vec<String> {
    let picked = tauri::async_runtime::spawn_blocking(move || {
        app.dialog()
            .file()
            .set_title("Add PDFs to the library")
            .add_filter("PDF documents", &["pdf", "PDF"])
            .blocking_pick_files()
    })
    .await
    .ok()
    .flatten()
    .unwrap_or_default();
    picked
        .into_iter()
        .filter_map(|f| f.into_path().ok())
        .map(|p| p.display().to_string())
        .collect()
}

/// Answers a message, streaming agent events over `events`.
#[tauri::command]
pub async fn ask(
    desk: State<'_, Desk>,
    args: AskArgs,
    events: Channel<Event>,
) -> IpcResult<TurnResult> {
    desk.ask(args, &forward(&events)).await
}

/// Answers a run's open question with `choice`, or (without one) finishes a run that stopped
/// before its end, streaming agent events over `events`.
#[tauri::command]
pub async fn resume(
    desk: State<'_, Desk>,
    run_key: String,
    thread_id: String,
    choice: Option<String>,
    events: Channel<Event>,
) -> IpcResult<TurnResult> {
    desk.resume(&run_key, &thread_id, choice.as_deref(), &forward(&events))
        .await
}

/// Cancels a running answer.
#[tauri::command]
pub fn run_cancel(desk: State<'_, Desk>, run_key: String) -> bool {
    desk.cancel_run(&run_key)
}

/// Conversations, newest first.
#[tauri::command]
pub async fn threads_list(
    desk: State<'_, Desk>,
    archived: bool,
    query: Option<String>,
) -> IpcResult<Vec<Conversation>> {
    desk.threads(archived, query.as_deref()).await
}

/// A conversation with all its messages.
#[tauri::command]
pub async fn thread_get(desk: State<'_, Desk>, id: String) -> IpcResult<ThreadView> {
    desk.thread(&id).await
}

/// Renames a conversation.
#[tauri::command]
pub async fn thread_rename(desk: State<'_, Desk>, id: String, title: String) -> IpcResult<()> {
    desk.rename_thread(&id, &title).await
}

/// Archives or restores a conversation.
#[tauri::command]
pub async fn thread_archive(desk: State<'_, Desk>, id: String, archived: bool) -> IpcResult<()> {
    desk.archive_thread(&id, archived).await
}

/// Exports a conversation to a file the user picks; returns the path, or `None` when the
/// user closed the dialog.
#[tauri::command]
pub async fn thread_export(
    app: AppHandle,
    desk: State<'_, Desk>,
    id: String,
    message_id: Option<String>,
    format: ExportFormat,
) -> IpcResult<Option<String>> {
    let body = desk
        .export_thread(&id, message_id.as_deref(), format)
        .await?;
    let what = if message_id.is_some() {
        "answer"
    } else {
        "conversation"
    };
    let (ext, name) = match format {
        ExportFormat::Markdown => ("md", "Markdown"),
        ExportFormat::Json => ("json", "JSON"),
        ExportFormat::Pdf => ("pdf", "PDF report"),
    };
    save_as(
        app,
        format!("Export {what}"),
        format!("{what}.{ext}"),
        (name, ext),
        body,
    )
    .await
}

/// Asks where to save `body` (a native save dialog) and writes it there; the path, or `None`
/// when the dialog was closed.
async fn save_as(
    app: AppHandle,
    title: String,
    file_name: String,
    filter: (&'static str, &'static str),
    body: impl AsRef<[u8]>,
) -> IpcResult<Option<String>> {
    let path = tauri::async_runtime::spawn_blocking(move || {
        app.dialog()
            .file()
            .set_title(title)
            .set_file_name(file_name)
            .add_filter(filter.0, &[filter.1])
            .blocking_save_file()
    })
    .await
    .ok()
    .flatten()
    .and_then(|f| f.into_path().ok());
    let Some(path) = path else { return Ok(None) };
    std::fs::write(&path, body).map_err(|source| {
        IpcError::from(policypal::Error::File {
            path: path.clone(),
            source,
        })
    })?;
    Ok(Some(path.display().to_string()))
}

/// The review inbox of the active profile.
#[tauri::command]
pub async fn reviews_list(desk: State<'_, Desk>, all: bool) -> IpcResult<Vec<ReviewSummary>> {
    desk.reviews(all).await
}

/// The active (reviewer) profile answers a request.
#[tauri::command]
pub async fn review_answer(
    desk: State<'_, Desk>,
    id: String,
    reply: ExpertReply,
) -> IpcResult<TurnResult> {
    desk.answer_review(&id, &reply).await
}

/// Saves a request as a file for a colleague; the path, or `None` when the dialog was closed.
#[tauri::command]
pub async fn review_export(
    app: AppHandle,
    desk: State<'_, Desk>,
    id: String,
) -> IpcResult<Option<String>> {
    let body = desk.review_file(&id).await?;
    let name = format!("review-{}.json", id.get(..8).unwrap_or(&id));
    save_as(
        app,
        "Export the review request".into(),
        name,
        ("Review request", "json"),
        body,
    )
    .await
}

/// Imports a colleague's filled-in review file chosen in a dialog; `None` when closed.
#[tauri::command]
pub async fn review_import(app: AppHandle, desk: State<'_, Desk>) -> IpcResult<Option<TurnResult>> {
    let path = tauri::async_runtime::spawn_blocking(move || {
        app.dialog()
            .file()
            .set_title("Import an expert's reply")
            .add_filter("Review file", &["json"])
            .blocking_pick_file()
    })
    .await
    .ok()
    .flatten()
    .and_then(|f| f.into_path().ok());
    let Some(path) = path else { return Ok(None) };
    Ok(Some(desk.import_review(&path).await?))
}

/// The active profile withdraws one of its requests.
#[tauri::command]
pub async fn review_withdraw(desk: State<'_, Desk>, id: String) -> IpcResult<TurnResult> {
    desk.withdraw_review(&id).await
}

/// Marks the active profile as a reviewer (or not).
#[tauri::command]
pub async fn profile_reviewer(desk: State<'_, Desk>, on: bool) -> IpcResult<Profile> {
    desk.set_reviewer(on).await
}

/// The settings the UI edits.
#[tauri::command]
pub async fn settings_get(desk: State<'_, Desk>) -> IpcResult<UiSettings> {
    desk.settings().await
}

/// Saves the settings and applies them.
#[tauri::command]
pub async fn settings_save(desk: State<'_, Desk>, settings: UiSettings) -> IpcResult<UiSettings> {
    desk.save_settings(settings).await
}

/// A stored API key, masked.
#[tauri::command]
pub async fn key_status(name: String, desk: State<'_, Desk>) -> IpcResult<Option<String>> {
    // The keychain tool is a subprocess: keep it off the async workers.
    let d = desk.inner();
    tokio::task::block_in_place(|| d.key_status(&name))
}

/// Stores an API key in the OS keychain.
#[tauri::command]
pub async fn key_set(desk: State<'_, Desk>, name: String, value: String) -> IpcResult<String> {
    let d = desk.inner();
    tokio::task::block_in_place(|| d.set_key(&name, &value))
}

/// Removes an API key from the keychain.
#[tauri::command]
pub async fn key_delete(desk: State<'_, Desk>, name: String) -> IpcResult<()> {
    let d = desk.inner();
    tokio::task::block_in_place(|| d.delete_key(&name))
}
