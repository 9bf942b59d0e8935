//! Grammars from tool definitions: what a model may write so that its calls,
//! in the dialect it was trained on, read back through the detector as calls
//! of the given tools with arguments their schemas allow.
//!
//! [`build_grammar`] takes the tools ([`GrammarTool`]: a name and an input
//! schema), a text dialect ([`WireFormat`](crate::WireFormat), the names the
//! detector uses) and [`GrammarOptions`] (`tool_choice`, parallel calls, an
//! optional reasoning block) and builds one [`ToolGrammar`] in its own
//! representation (rules of sequences, alternatives, bounded repeats,
//! literals and char classes), written on demand as GBNF, as llguidance's
//! Lark or as an XGrammar structural tag. [`GrammarCache`] keeps built
//! grammars by their inputs. Everything here is synchronous and does no I/O.
//! Dialects, what is enforced and what is loosened: `docs/constrain.md`.
//!
//! ```
//! use serde_json::json;
//! use toolrouter::{GrammarOptions, GrammarTool, ToolChoice, WireFormat, build_grammar};
//!
//! let schema = json!({"type": "object",
//!                     "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
//!                     "required": ["city"]});
//! let schema = schema.as_object().unwrap();
//! let tools = [GrammarTool::new("get_weather", schema)];
//! let lazy = build_grammar(&tools, WireFormat::Qwen3Coder, &GrammarOptions::new(ToolChoice::Auto)).unwrap();
//! assert!(lazy.is_lazy());
//! assert_eq!(lazy.triggers(), ["<tool_call>"]);
//! assert!(lazy.gbnf().contains("<function="));
//! assert_eq!(lazy.structural_tag()["format"]["type"], "triggered_tags");
//! ```

mod args;
mod build;
mod cache;
mod dialect;
mod error;
mod gbnf;
mod ir;
mod lark;
mod options;
mod quote;
mod resume;
mod schema;
mod server;
mod structural_tag;
mod text;

#[cfg(test)]
mod tests;

pub use build::{ToolGrammar, build_grammar};
pub use cache::GrammarCache;
pub use error::GrammarError;
pub use options::{GrammarLimits, GrammarOptions, GrammarTool, ToolChoice};
pub use resume::Resumed;
pub use server::{GrammarServer, UnknownGrammarServer};
