//! Build script: lets Tauri generate the app context (configuration, capabilities, and the
//! built `ui/dist` embedded into the binary).
fn main() {
    tauri_build::build();
}
