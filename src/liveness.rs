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
use std::io::Write;
use std::path::PathBuf;

use crate::config::DataDir;

/// The lock of one ingestion; released (and its file removed) when dropped.
#[derive(Debug)]
pub struct IngestLock {
    path: PathBuf,
    file: Option<File>,
    /// Shared holds remove the file only when they were the last (see `Drop`).
    remove: bool,
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
        Self::take(dir, name, false)
    }

    /// A shared hold of the lock `name`: any number of processes may share it, and it keeps
    /// out whoever takes it exclusively ([`Self::try_acquire_named`]) until the last lets go —
    /// the way ingestions, which write to the live index, keep out a reindex, which replaces it.
    pub fn try_acquire_shared(dir: &DataDir, name: &str) -> std::io::Result<Option<Self>> {
        Self::take(dir, name, true)
    }

    fn take(dir: &DataDir, name: &str, shared: bool) -> std::io::Result<Option<Self>> {
        let locks = dir.root().join("locks");
        std::fs::create_dir_all(&locks)?;
        Self::take_path(locks.join(format!("{name}.lock")), shared)
    }

    fn take_path(path: PathBuf, shared: bool) -> std::io::Result<Option<Self>> {
        loop {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)?;
            let taken = if shared {
                file.try_lock_shared()
            } else {
                file.try_lock()
            };
            match taken {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => return Ok(None),
                Err(TryLockError::Error(e)) => return Err(e),
            }
            // The holder before us removes the file before it lets go: a lock taken on a file
            // that is no longer at `path` guards nothing, so open the path again.
            if still_at(&file, &path)? {
                if shared {
                    return Ok(Some(Self {
                        path,
                        file: Some(file),
                        remove: false,
                    }));
                }
                // Who holds it, for the "busy" message another process shows.
                file.set_len(0)?;
                (&file)
                    .write_all(format!("{} {}", std::process::id(), program_name()).as_bytes())?;
                return Ok(Some(Self {
                    path,
                    file: Some(file),
                    remove: true,
                }));
            }
        }
    }

    /// Who holds the lock `name` ("policypal-desktop, process 4242"), as its holder wrote it;
    /// `None` when nobody does or it cannot be read.
    pub fn holder(dir: &DataDir, name: &str) -> Option<String> {
        let text =
            std::fs::read_to_string(dir.root().join("locks").join(format!("{name}.lock"))).ok()?;
        let (pid, program) = text.trim().split_once(' ')?;
        let pid: u32 = pid.parse().ok()?;
        Some(format!("{program}, process {pid}"))
    }

    /// [`Self::holder`] of the ingestion of the file with content hash `sha256`.
    pub fn ingestion_holder(dir: &DataDir, profile_id: &str, sha256: &str) -> Option<String> {
        Self::holder(dir, &format!("{profile_id}-{sha256}"))
    }

    /// Removes the lock files that no live process holds (left by processes that were killed
    /// before they could remove them); returns how many.
    pub fn sweep(dir: &DataDir) -> std::io::Result<usize> {
        let locks = dir.root().join("locks");
        let entries = match std::fs::read_dir(&locks) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        let mut removed = 0;
        for entry in entries {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".lock")
                && Self::try_acquire_named(dir, stem)?.is_some()
            {
                removed += 1;
            }
        }
        Ok(removed)
    }
}

/// How many times the last shared holder tries to remove the lock file (see `Drop`), and the
/// pause between tries: a child between its fork and its exec holds the lock for a moment only;
/// another live holder keeps it for good, and the file then stays for that holder.
const SHARED_RELEASE_TRIES: usize = 5;
const SHARED_RELEASE_PAUSE: std::time::Duration = std::time::Duration::from_millis(20);

/// The name of this program, as a holder names itself.
fn program_name() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|n| !n.is_empty() && !n.contains(char::is_whitespace))
        .unwrap_or_else(|| "policypal".into())
}

/// True when `path` still names the open `file`.
#[cfg(unix)]
fn still_at(file: &File, path: &std::path::Path) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let open = file.metadata()?;
    match std::fs::metadata(path) {
        Ok(now) => Ok(now.dev() == open.dev() && now.ino() == open.ino()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Elsewhere an open file cannot be removed, so the path always names it.
#[cfg(not(unix))]
fn still_at(_file: &File, _path: &std::path::Path) -> std::io::Result<bool> {
    Ok(true)
}

impl Drop for IngestLock {
    fn drop(&mut self) {
        // Removed while still locked: whoever opens the path afterwards finds the row final.
        if self.remove {
            let _ = std::fs::remove_file(&self.path);
        }
        drop(self.file.take());
        // The last shared holder out removes the file too: taking it exclusively succeeds only
        // when nobody holds it, and that hold removes it when dropped. A child process this
        // process is starting (another thread's extraction worker) holds a copy of every open
        // file between its fork and its exec, this lock's too: the take is tried again a few
        // times, briefly, before the file is left to `sweep`.
        if !self.remove {
            for _ in 0..SHARED_RELEASE_TRIES {
                match Self::take_path(self.path.clone(), false) {
                    Ok(Some(_)) | Err(_) => break,
                    Ok(None) => std::thread::sleep(SHARED_RELEASE_PAUSE),
                }
            }
        }
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

    #[test]
    fn shared_holders_keep_out_an_exclusive_one_and_it_keeps_them_out() -> std::io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let dir = DataDir::at(tmp.path());
        let a = IngestLock::try_acquire_shared(&dir, "writers")?;
        let b = IngestLock::try_acquire_shared(&dir, "writers")?;
        assert!(a.is_some() && b.is_some());
        assert!(IngestLock::try_acquire_named(&dir, "writers")?.is_none());
        drop(a);
        assert!(IngestLock::try_acquire_named(&dir, "writers")?.is_none());
        drop(b);
        let exclusive = IngestLock::try_acquire_named(&dir, "writers")?;
        assert!(exclusive.is_some());
        assert!(IngestLock::try_acquire_shared(&dir, "writers")?.is_none());
        drop(exclusive);
        let a = IngestLock::try_acquire_shared(&dir, "writers")?;
        let b = IngestLock::try_acquire_shared(&dir, "writers")?;
        let file = tmp.path().join("locks").join("writers.lock");
        drop(a);
        assert!(file.exists(), "removed while another holder had it");
        drop(b);
        assert!(!file.exists(), "left behind by the last holder");
        Ok(())
    }

    #[test]
    fn a_shared_lock_held_a_moment_longer_by_a_starting_child_is_still_removed()
    -> std::io::Result<()> {
        // A child between fork and exec still holds the last shared holder's open file: a
        // second open file description of the lock, let go a moment after the holder's.
        let tmp = tempfile::tempdir()?;
        let dir = DataDir::at(tmp.path());
        let last = IngestLock::try_acquire_shared(&dir, "writers")?;
        let file = tmp.path().join("locks").join("writers.lock");
        let copy = File::open(&file)?;
        copy.lock_shared()?;
        let child = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(30));
            drop(copy);
        });
        drop(last);
        let _ = child.join();
        assert!(!file.exists(), "left behind by the last holder");
        Ok(())
    }

    #[test]
    fn a_lock_file_whose_path_was_removed_is_not_taken() -> std::io::Result<()> {
        // The race a holder's release opens: another process opened the file, the holder
        // removed it and let go, the other process then locks the removed file.
        let tmp = tempfile::tempdir()?;
        let dir = DataDir::at(tmp.path());
        let held = IngestLock::try_acquire(&dir, "p1", "abc")?;
        let path = tmp.path().join("locks").join("p1-abc.lock");
        let stale = File::open(&path)?;
        drop(held);
        assert!(!still_at(&stale, &path)?);
        let again = IngestLock::try_acquire(&dir, "p1", "abc")?;
        assert!(again.is_some());
        assert!(still_at(
            again
                .as_ref()
                .and_then(|l| l.file.as_ref())
                .ok_or_else(|| std::io::Error::other("no file"))?,
            &path
        )?);
        Ok(())
    }

    #[test]
    fn stale_lock_files_are_swept_and_held_ones_kept() -> std::io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let dir = DataDir::at(tmp.path());
        let locks = tmp.path().join("locks");
        std::fs::create_dir_all(&locks)?;
        // A killed process leaves its file behind, unlocked.
        std::fs::write(locks.join("p1-dead.lock"), b"")?;
        let live = IngestLock::try_acquire(&dir, "p1", "live")?;
        assert!(live.is_some());
        assert_eq!(IngestLock::sweep(&dir)?, 1);
        // The live one names its holder: this process.
        let me = format!("process {}", std::process::id());
        assert!(IngestLock::ingestion_holder(&dir, "p1", "live").is_some_and(|h| h.ends_with(&me)));
        assert_eq!(IngestLock::ingestion_holder(&dir, "p1", "dead"), None);
        assert!(!locks.join("p1-dead.lock").exists());
        assert!(locks.join("p1-live.lock").exists());
        Ok(())
    }
}
