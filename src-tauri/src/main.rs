//! Desktop entry point: hands over to [`policypal_desktop::run`].
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

#[global_allocator]
static ALLOCATOR: policypal::Allocator = policypal::Allocator;

fn main() -> std::process::ExitCode {
    // Started as the text-extraction worker of the app (see policypal::ingest::worker).
    if let Some(code) = policypal::ingest::worker::serve_if_asked() {
        return std::process::ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    policypal_desktop::run()
}
