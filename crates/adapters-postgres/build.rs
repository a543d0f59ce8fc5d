//! The migrations are embedded at compile time (`embed_migrations!`, and the repeatable ones by
//! `include_str!`): a migration added or edited without a change to this crate's Rust must still
//! rebuild it, or the binary would run without it. The same build names what it embedded
//! (`SCHEMA_SOURCES_DIGEST`), so that the tests' template database is named by the migrations this
//! binary runs, never by the files on disk a stale binary does not have.
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                files(&path, out);
            } else {
                out.push(path);
            }
        }
    }
}

fn main() {
    let mut hasher = Sha256::new();
    for dir in ["../../migrations", "../../migrations-repeatable"] {
        println!("cargo:rerun-if-changed={dir}");
        let mut found = Vec::new();
        files(Path::new(dir), &mut found);
        found.sort();
        for path in found {
            // Relative names: a clone elsewhere with the same migrations shares the template.
            hasher.update(path.to_string_lossy().as_bytes());
            hasher.update(std::fs::read(&path).unwrap_or_default());
        }
    }
    let digest: String = hasher.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=SCHEMA_SOURCES_DIGEST={digest}");
}
