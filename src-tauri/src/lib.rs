//! PolicyPal desktop: a thin Tauri 2 shell over the `policypal` core.
//!
//! Owns: the window, IPC commands (`commands`), the app state (`api::Desk`) and the mapping of
//! core errors to IPC errors (`error`). Must not: contain library or agent logic (the CLI and
//! this app call the same core functions), or know the DOM (that is `ui/`).

pub mod api;
pub mod commands;
pub mod error;
#[cfg(test)]
mod tests;

use std::process::ExitCode;

use policypal::config::DataDir;
use tauri::Manager;

/// The files among the program's arguments, as absolute paths: what a file manager's "Open
/// with PolicyPal" passes (the desktop entry's `%F`). Options and paths that are not files are
/// left out; the upload dialog says which files are not PDFs.
fn opened_files(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::path::PathBuf> {
    args.map(std::path::PathBuf::from)
        .filter(|p| !p.as_os_str().to_string_lossy().starts_with('-') && p.is_file())
        .filter_map(|p| std::path::absolute(&p).ok())
        .collect()
}

/// The first argument that makes this program the `policypal` command line.
pub const CLI_FLAG: &str = "--cli";

/// Runs the command line with `args` (the first is the program's name) and returns its exit
/// code: one program in the package serves both the window and the CLI.
pub fn run_cli(args: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(policypal::cli::main_from(args));
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// Builds and runs the app until its window closes.
pub fn run() -> ExitCode {
    let dir = match DataDir::resolve(None) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = dir.ensure() {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let _log = policypal::logging::init(&dir);
    std::panic::set_hook(Box::new(|info| {
        tracing::error!("panic: {info}");
    }));
    let desk = tauri::async_runtime::block_on(api::Desk::open(dir))
        .with_opened_files(opened_files(std::env::args_os().skip(1)));
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .manage(desk)
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::opened_files,
            commands::profile_create,
            commands::profile_switch,
            commands::profile_update,
            commands::onboarding_finish,
            commands::onboarding_skip,
            commands::sample_document,
            commands::profile_privacy,
            commands::documents_list,
            commands::sets_list,
            commands::set_recolor,
            commands::set_create,
            commands::sets_palette,
            commands::document_ingest,
            commands::ingest_cancel,
            commands::document_delete,
            commands::document_set_enabled,
            commands::document_open,
            commands::document_pdf,
            commands::open_link,
            commands::page_text,
            commands::pick_pdfs,
            commands::pick_model_file,
            commands::ask,
            commands::resume,
            commands::run_cancel,
            commands::threads_list,
            commands::thread_get,
            commands::thread_rename,
            commands::thread_archive,
            commands::thread_export,
            commands::reviews_list,
            commands::review_answer,
            commands::review_export,
            commands::review_import,
            commands::review_withdraw,
            commands::profile_reviewer,
            commands::settings_get,
            commands::settings_save,
            commands::key_status,
            commands::key_set,
            commands::key_delete,
        ])
        .build(tauri::generate_context!());
    let app = match app {
        Ok(a) => a,
        Err(e) => {
            tracing::error!(error = %e, "the window could not be created");
            eprintln!("error: the window could not be created: {e}");
            return ExitCode::FAILURE;
        }
    };
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            let desk = handle.state::<api::Desk>();
            tauri::async_runtime::block_on(desk.close());
        }
    });
    ExitCode::SUCCESS
}
