//! Which live process owns an ingestion (or a reindex).
//!
//! An ingestion holds an exclusive lock on a small file named after its profile and the PDF's
//! content hash (`locks/<profile>-<sha256>.lock` in the data directory) from before its
//! `processing` row exists until after the row is final. The operating system releases the
//! lock when the process exits, crashes or is killed, so "the lock can be taken" means exactly
//! "nobody is ingesting this file any more" — in this process, another window or the CLI — with
//! no lease to wait out and no process id that could be reused.
//!
//! Owns: the lock files. Must not: read or change documents (the library decides what to do
//! with an ingestion found dead).

use std::fs::{File, OpenOptions, TryLockError};
use std::path::PathBuf;

use crate::config::DataDir;

/// The lock of one ingestion; released (and its file removed) when dropped.
#[derive(Debug)]
pub struct IngestLock {
    path: PathBuf,
    file: Option<File>,
}

impl IngestLock {
    /// Takes the lock of ingesting the file with content hash `sha256` into `profile_id`, or
    /// `None` when a live ingestion (of any process) holds it.
    pub fn try_acquire(
        dir: &DataDir,
        profile_id: &str,
        sha256: &str,
    ) -> std::io::Result<Option<Self>> {
        Self::try_acquire_named(dir, &format!("{profile_id}-{sha256}"))
    }

    /// The same for other work that one live process at a time may do (`reindex`).
    pub fn try_acquire_named(dir: &DataDir, name: &str) -> std::io::Result<Option<Self>> {
        let locks = dir.root().join("locks");
        std::fs::create_dir_all(&locks)?;
        let path = locks.join(format!("{name}.lock"));
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Self {
                path,
                file: Some(file),
            })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }
}

impl Drop for IngestLock {
    fn drop(&mut self) {
        // Removed while still locked: whoever opens the path afterwards finds the row final.
        let _ = std::fs::remove_file(&self.path);
        drop(self.file.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ingestion_lock_is_exclusive_until_dropped() -> std::io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let dir = DataDir::at(tmp.path());
        let first = IngestLock::try_acquire(&dir, "p1", "abc")?;
        assert!(first.is_some());
        // A second open file description, as another process would have, cannot take it.
        assert!(IngestLock::try_acquire(&dir, "p1", "abc")?.is_none());
        // Another file or another profile is independent.
        assert!(IngestLock::try_acquire(&dir, "p2", "abc")?.is_some());
        drop(first);
        assert!(IngestLock::try_acquire(&dir, "p1", "abc")?.is_some());
        Ok(())
    }
}
