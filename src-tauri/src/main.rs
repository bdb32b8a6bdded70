//! Desktop entry point: hands over to [`policypal_desktop::run`].
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

#[global_allocator]
static ALLOCATOR: policypal::Allocator = policypal::Allocator;

fn main() -> std::process::ExitCode {
    // Started as the text-extraction worker of the app (see policypal::ingest::worker).
    if let Some(code) = policypal::ingest::worker::serve_if_asked() {
        return std::process::ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    // `policypal-desktop --cli …` is the command line (the installed `policypal` runs it so).
    let mut args = std::env::args_os();
    let _program = args.next();
    if args
        .next()
        .is_some_and(|a| a == policypal_desktop::CLI_FLAG)
    {
        let argv = std::iter::once(std::ffi::OsString::from("policypal")).chain(args);
        return policypal_desktop::run_cli(argv);
    }
    policypal_desktop::run()
}
