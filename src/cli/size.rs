//! Byte sizes on the command line: plain bytes (`16777216`) or a number with a
//! binary unit (`16MiB`, `16 MiB`, `512 KiB`, `1GiB`). The help shows defaults
//! the same way (`[default: 16MiB]`; clap would quote a value with a space).

/// The units, largest first, with their size in bytes.
const UNITS: [(&str, u64); 4] = [
    ("GiB", 1 << 30),
    ("MiB", 1 << 20),
    ("KiB", 1 << 10),
    ("B", 1),
];

/// Parses a size: bytes, or a number and a unit (ASCII case ignored, a space
/// between them allowed). A clap value parser.
pub(crate) fn parse_size<T: TryFrom<u64>>(text: &str) -> Result<T, String> {
    let not_a_size = || {
        format!(
            "`{text}` is not a size: give bytes (`16777216`) or a number with \
             KiB, MiB or GiB (`16MiB`, `16 MiB`)"
        )
    };
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let unit = unit.trim_start_matches(' ');
    let scale = match unit {
        "" => 1,
        unit => UNITS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(unit))
            .map(|&(_, scale)| scale)
            .ok_or_else(not_a_size)?,
    };
    let number: u64 = number.parse().map_err(|_| not_a_size())?;
    number
        .checked_mul(scale)
        .and_then(|bytes| T::try_from(bytes).ok())
        .ok_or_else(|| format!("`{text}` is more bytes than this machine can count"))
}

/// A size as the help shows it: in the largest unit that divides it
/// (`16MiB`, `4KiB`), else in bytes (`1000B`).
pub(crate) fn show_size(bytes: impl TryInto<u64>) -> String {
    let bytes = bytes.try_into().unwrap_or(u64::MAX);
    let (unit, scale) = UNITS
        .iter()
        .find(|&&(_, scale)| bytes > 0 && bytes % scale == 0)
        .copied()
        .unwrap_or(("B", 1));
    format!("{}{unit}", bytes / scale)
}

#[cfg(test)]
mod tests;
