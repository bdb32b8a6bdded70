//! The first run of a new library: whether to show the onboarding, setting the first profile
//! up from it, and the sample policy offered to try a question at once.
//!
//! Owns: what counts as a new library, the onboarding's stored state and the sample document
//! (shipped inside the binary, so it works offline and without a resource folder). Must not:
//! know the window (the desktop shell asks and shows; the sample is ingested like any file).

use std::path::PathBuf;

use serde::Serialize;

use crate::Error;
use crate::config::DataDir;
use crate::library::Library;
use crate::store::{Profile, UserContext};

/// Set once the onboarding was completed or skipped.
const META_ONBOARDED: &str = "desktop.onboarded";

/// The sample: a one-page company policy (fictional).
const SAMPLE_PDF: &[u8] = include_bytes!("../assets/acme-data-retention-policy.pdf");
/// Its file name in the data directory.
const SAMPLE_NAME: &str = "acme-data-retention-policy.pdf";
/// Its title in the library.
const SAMPLE_TITLE: &str = "Acme data retention policy (sample)";
/// A question the sample answers, offered once it is in the library.
const SAMPLE_QUESTION: &str = "How long are call recordings with customers kept?";

/// The sample document of the first run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SampleDocument {
    /// Where it was written.
    pub path: PathBuf,
    /// The title to give it.
    pub title: String,
    /// A question it answers.
    pub question: String,
}

/// Never onboarded, one profile, and nothing in it yet: a library that was in use before
/// onboarding existed is not treated as new.
pub async fn is_first_run(lib: &Library) -> Result<bool, Error> {
    if lib.store().meta(META_ONBOARDED).await?.is_some() {
        return Ok(false);
    }
    let profiles = lib.store().profiles().await?;
    Ok(match profiles.as_slice() {
        [only] => lib.store().documents(&only.id).await?.is_empty(),
        _ => false,
    })
}

/// Completes the onboarding: `profile` takes the name (kept when blank) and user context given,
/// in one write, and the onboarding is not offered again.
pub async fn finish(
    lib: &Library,
    profile: &Profile,
    name: &str,
    context: &UserContext,
) -> Result<Profile, Error> {
    let name = if name.trim().is_empty() {
        profile.name.as_str()
    } else {
        name
    };
    let p = lib
        .store()
        .set_up_profile(&profile.id, name, context)
        .await?;
    lib.store().set_meta(META_ONBOARDED, "finished").await?;
    // The profile the user just set up is the one the CLI uses when none is named.
    lib.set_active_profile(&p).await?;
    Ok(p)
}

/// Dismisses the onboarding without changes.
pub async fn skip(lib: &Library) -> Result<(), Error> {
    Ok(lib.store().set_meta(META_ONBOARDED, "skipped").await?)
}

/// Writes the sample into `<data dir>/samples/` (whole or not at all) and returns it.
pub async fn sample(dir: &DataDir) -> Result<SampleDocument, Error> {
    let folder = dir.root().join("samples");
    let path = folder.join(SAMPLE_NAME);
    let write = async {
        tokio::fs::create_dir_all(&folder).await?;
        let partial = folder.join(format!("{SAMPLE_NAME}.partial"));
        tokio::fs::write(&partial, SAMPLE_PDF).await?;
        tokio::fs::rename(&partial, &path).await
    };
    write.await.map_err(|source| Error::File {
        path: path.clone(),
        source,
    })?;
    Ok(SampleDocument {
        path,
        title: SAMPLE_TITLE.to_owned(),
        question: SAMPLE_QUESTION.to_owned(),
    })
}
