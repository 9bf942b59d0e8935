//! The XML tag format for text-only endpoints: a system-prompt section that
//! teaches it (`prompt.rs`, written within a budget, `budget.rs`), results as
//! `<tool_result>` text, and calls written back as text (`calls.rs`).
//!
//! A call is the tool's name as a tag with one child element per parameter:
//! `<read_file><path>src/main.rs</path></read_file>` (the Cline convention).
//! Every piece of data is written with `&`, `<` and `>` as XML entities, which
//! the detector decodes under `DetectConfig::xml_entities`.

mod budget;
mod calls;
mod prompt;

pub(crate) use calls::{assistant_text, escape_into, result_text};
#[cfg(test)]
pub(crate) use prompt::{MAX_SCHEMA_TEXT, MAX_TOOL_SCHEMA_TEXT, PromptError, write_prompt_counted};
pub(crate) use prompt::{Overflow, PromptLimits, system_prompt, system_prompt_noted, write_prompt};
