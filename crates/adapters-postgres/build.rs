//! The migrations are embedded at compile time (`embed_migrations!`): a migration added or edited
//! without a change to this crate's Rust must still rebuild it, or the binary would run without it.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
