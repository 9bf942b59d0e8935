//! What the help pages share: each command's Examples section, and the
//! heading the global options stand under, after the command's own.

/// The heading of the options every command takes (`--log-format`).
pub(crate) const GLOBAL_OPTIONS: &str = "Global options";

/// An `Examples:` section for a command's `after_help`: its heading styled
/// as clap styles its own, then `body` (comment lines and commands).
pub(crate) fn examples(body: &str) -> String {
    let styles = clap::builder::styling::Styles::default();
    let header = styles.get_header();
    format!("{header}Examples:{header:#}\n{}", body.trim_matches('\n'))
}
