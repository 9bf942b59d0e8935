//! The detector's recognisers: every text dialect's `TextFormat`, in probing
//! order, expanded from the dialect table (`core::for_each_format!`).

use crate::core::{WireFormat, for_each_format};

use super::format::TextFormat;

/// A dialect's recogniser and the format its calls report.
#[derive(Clone, Copy)]
pub(crate) struct Recogniser {
    /// The dialect.
    pub(crate) format: WireFormat,
    /// Its probe.
    pub(crate) text: &'static dyn TextFormat,
}

/// Expands the dialect table's rows that have a recogniser (a path below
/// `detect::formats`) into [`RECOGNISERS`].
macro_rules! recognisers {
    ($(
        $(#[$meta:meta])*
        $variant:ident, $name:literal $(| $alias:literal)*, $kind:ident($($($segment:ident)::+)?), auto: $auto:literal, core: $core:literal;
    )*) => {
        /// Every text dialect's recogniser, in the table's (probing) order:
        /// when two could open at the same byte, the earlier wins.
        pub(crate) static RECOGNISERS: &[Recogniser] = &[
            $($(Recogniser { format: WireFormat::$variant, text: &super::formats::$($segment)::+ },)?)*
        ];
    };
}

for_each_format!(recognisers);

/// The text formats the detector knows.
pub fn text_formats() -> Vec<WireFormat> {
    RECOGNISERS.iter().map(|r| r.format).collect()
}
