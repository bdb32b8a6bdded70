//! Desktop entry point: hands over to [`policypal_desktop::run`].
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

#[global_allocator]
static ALLOCATOR: policypal::Allocator = policypal::Allocator;

fn main() -> std::process::ExitCode {
    policypal_desktop::run()
}
