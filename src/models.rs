//! The local models the agent can answer with: registering a GGUF file (it becomes the model of
//! every action in generative mode), listing and removing them. The CLI's `models` commands
//! and the desktop's settings call these.
//!
//! Owns: naming a registered model, the settings change, the check that a file is a usable
//! model before it is registered. Must not: run a model (`llm::local` does) or touch the
//! library.

use std::path::Path;

use serde::Serialize;

use crate::Error;
use crate::config::DataDir;
use crate::llm::{self, LlmSettings};

/// A registered local model.
#[derive(Debug, Clone, Serialize)]
pub struct LocalModel {
    /// The name actions are routed by.
    pub name: String,
    /// The GGUF file.
    pub path: std::path::PathBuf,
    /// Whether the file is still there.
    pub present: bool,
    /// The actions it answers.
    pub actions: Vec<String>,
}

/// Checks `file` (a GGUF model with a chat template), registers it under its file name and
/// makes it the model of every action. Registering the same file again renames nothing; a
/// file that cannot be used is refused and the settings are left as they were.
pub fn add(dir: &DataDir, file: &Path) -> Result<(LocalModel, llm::local::ModelInfo), Error> {
    let checked = check(file)?;
    let model = dir.update_settings(|settings| Ok::<_, Error>(register(settings, &checked)))?;
    Ok((model, checked.info))
}

/// A GGUF file found usable, not registered yet.
#[derive(Debug, Clone)]
pub struct Checked {
    path: std::path::PathBuf,
    name: String,
    info: llm::local::ModelInfo,
}

/// Checks that `file` is a usable model (a GGUF with a chat template), without registering it.
pub fn check(file: &Path) -> Result<Checked, Error> {
    let path = std::fs::canonicalize(file).map_err(|e| {
        Error::from(llm::LlmError::LocalLoad {
            path: file.to_owned(),
            message: e.to_string(),
        })
    })?;
    let info = llm::local::inspect(&path)?;
    Ok(Checked {
        name: name_of(&path),
        path,
        info,
    })
}

/// Registers a checked model in `settings` (for a caller that changes other settings in the
/// same write) and makes it the model of every action.
pub fn register(settings: &mut crate::config::Settings, checked: &Checked) -> LocalModel {
    let llm = settings.llm.get_or_insert_with(LlmSettings::default);
    llm.use_local_model(&checked.name, checked.path.clone());
    entry(llm, &checked.name, &checked.path)
}

/// The registered local models.
pub fn list(dir: &DataDir) -> Result<Vec<LocalModel>, Error> {
    let settings = dir.load_settings()?;
    let Some(llm) = settings.llm else {
        return Ok(Vec::new());
    };
    Ok(llm
        .local_models
        .iter()
        .map(|(name, path)| entry(&llm, name, path))
        .collect())
}

/// A registered model as `list` shows it.
fn entry(llm: &LlmSettings, name: &str, path: &Path) -> LocalModel {
    LocalModel {
        name: name.to_owned(),
        path: path.to_owned(),
        present: path.is_file(),
        actions: llm::ACTIONS
            .iter()
            .filter(|a| llm.model_for(a) == name)
            .map(|a| (*a).to_owned())
            .collect(),
    }
}

/// Unregisters a local model (the file is left where it is). Actions it answered go back to
/// the default remote models; when nothing else was configured, generative mode has no model
/// again.
pub fn remove(dir: &DataDir, name: &str) -> Result<(), Error> {
    dir.update_settings(|settings| {
        let missing = || Error::InvalidInput(format!("no local model is named {name}"));
        let llm = settings.llm.as_mut().ok_or_else(missing)?;
        llm.local_models.remove(name).ok_or_else(missing)?;
        let defaults = LlmSettings::default();
        for action in llm::ACTIONS {
            if llm.model_for(action) == name {
                llm.models
                    .insert(action.to_owned(), defaults.model_for(action));
            }
        }
        if *llm == defaults {
            settings.llm = None;
        }
        Ok(())
    })
}

/// The name a file is registered under: its file name without `.gguf`.
fn name_of(path: &Path) -> String {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    file.strip_suffix(".gguf")
        .or_else(|| file.strip_suffix(".GGUF"))
        .unwrap_or(&file)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_is_named_after_its_file() {
        assert_eq!(
            name_of(Path::new("/m/qwen2.5-0.5b-instruct-q4_k_m.gguf")),
            "qwen2.5-0.5b-instruct-q4_k_m"
        );
        assert_eq!(name_of(Path::new("/m/MODEL.GGUF")), "MODEL");
    }

    #[test]
    fn a_file_that_is_no_model_leaves_the_settings_as_they_were() {
        let root = std::env::temp_dir().join(format!("pp-models-{}", std::process::id()));
        let dir = DataDir::at(&root);
        dir.ensure().unwrap();
        let before = dir.load_settings().unwrap();
        let bad = root.join("policy.gguf");
        std::fs::write(&bad, b"%PDF-1.4").unwrap();
        let e = add(&dir, &bad).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::ModelMissing, "{e}");
        assert_eq!(dir.load_settings().unwrap(), before);
        assert!(list(&dir).unwrap().is_empty());
        assert_eq!(
            remove(&dir, "policy").unwrap_err().kind(),
            crate::ErrorKind::InvalidInput
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
