//! The names the command line takes, parsed by clap from the library's
//! tables: a provider (`--provider`), a text format (`--text-format`,
//! `parse --format`) and a dialect (`tools --dialect`).
//!
//! An unknown name is a usage error, as clap reports every bad value (exit
//! code 2): it lists the known names and suggests the nearest
//! (`UnknownNameError`). The help lists the same names from the same tables,
//! so that neither can go stale.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use toolrouter::providers::{find_profile, profiles};
use toolrouter::{Dialect, UnknownNameError, WireFormat};

/// A flag's value: every name (`auto`, `all`) or one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EveryOr<T> {
    /// Every name of the kind.
    Every,
    /// This one.
    One(T),
}

/// A clap value parser over one table of names.
#[derive(Clone, Copy)]
pub(crate) struct Names<T> {
    /// The value a name stands for, or why it stands for none.
    find: fn(&str) -> Result<T, UnknownNameError>,
    /// The names the help lists, generated from the table.
    listed: fn() -> Vec<PossibleValue>,
}

/// `--provider`: a profile's name or alias, or a wire name a profile offers
/// (`openai-responses`). The value is the name as given: the proxy and
/// `find_profile` take names.
pub(crate) const PROVIDER: Names<String> = Names {
    find: provider,
    listed: provider_values,
};

/// `--text-format`: a text dialect the detector reads.
pub(crate) const TEXT_FORMAT: Names<WireFormat> = Names {
    find: text_format,
    listed: || text_format_values(None),
};

/// `parse --format`: `auto` or a text dialect.
pub(crate) const TEXT_FORMAT_OR_AUTO: Names<EveryOr<WireFormat>> = Names {
    find: text_format_or_auto,
    listed: || text_format_values(Some(AUTO)),
};

/// `tools --dialect`: `all` or a dialect.
pub(crate) const DIALECT_OR_ALL: Names<EveryOr<Dialect>> = Names {
    find: dialect_or_all,
    listed: dialect_values,
};

const AUTO: &str = "auto";
const ALL: &str = "all";

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Names<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        (self.find)(&value.to_string_lossy()).map_err(|unknown| usage_error(cmd, arg, &unknown))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.listed)().into_iter()))
    }
}

/// clap's own error for a value outside its possible values (what
/// `--log-format xml` gives), with the library's known names and suggestions.
fn usage_error(
    cmd: &clap::Command,
    arg: Option<&clap::Arg>,
    unknown: &UnknownNameError,
) -> clap::Error {
    let strings =
        |names: &[&str]| ContextValue::Strings(names.iter().map(|n| (*n).to_owned()).collect());
    let mut error = clap::Error::new(ErrorKind::InvalidValue).with_cmd(cmd);
    let arg = arg.map(ToString::to_string).unwrap_or_default();
    error.insert(ContextKind::InvalidArg, ContextValue::String(arg));
    error.insert(
        ContextKind::InvalidValue,
        ContextValue::String(unknown.name.clone()),
    );
    error.insert(ContextKind::ValidValue, strings(&unknown.known));
    if !unknown.suggestions.is_empty() {
        error.insert(ContextKind::SuggestedValue, strings(&unknown.suggestions));
    }
    error
}

fn provider(name: &str) -> Result<String, UnknownNameError> {
    match find_profile(name) {
        Ok(_) => Ok(name.to_owned()),
        Err(_) => Err(UnknownNameError::new("provider", name, provider_names())),
    }
}

/// Every name `find_profile` takes, with the name the help lists it under: a
/// profile's aliases under its name, a wire alias under itself; by name.
fn provider_names() -> Vec<(&'static str, &'static str)> {
    let mut names = Vec::new();
    for p in profiles() {
        let name = p.name.as_str();
        names.push((name, name));
        names.extend(p.aliases.iter().map(|a| (a.as_str(), name)));
        names.extend(p.wire_aliases.keys().map(|a| (a.as_str(), a.as_str())));
    }
    names.sort_by_key(|&(_, listed)| listed);
    names
}

fn provider_values() -> Vec<PossibleValue> {
    let mut values = Vec::new();
    for p in profiles() {
        let mut help = p.display_name.clone();
        if !p.aliases.is_empty() {
            help.push_str(&format!(" (also {})", p.aliases.join(", ")));
        }
        values.push(
            PossibleValue::new(p.name.as_str())
                .help(help)
                .aliases(p.aliases.iter().map(String::as_str)),
        );
        for (alias, wire) in &p.wire_aliases {
            let help = format!("{} over the {wire} wire", p.display_name);
            values.push(PossibleValue::new(alias.as_str()).help(help));
        }
    }
    values.sort_by(|a, b| a.get_name().cmp(b.get_name()));
    values
}

fn text_format(name: &str) -> Result<WireFormat, UnknownNameError> {
    find_text_format(name, &[])
}

fn text_format_or_auto(name: &str) -> Result<EveryOr<WireFormat>, UnknownNameError> {
    if name.eq_ignore_ascii_case(AUTO) {
        return Ok(EveryOr::Every);
    }
    find_text_format(name, &[AUTO]).map(EveryOr::One)
}

/// A text format the detector reads; the error lists `keywords` first.
fn find_text_format(name: &str, keywords: &[&'static str]) -> Result<WireFormat, UnknownNameError> {
    let readable = toolrouter::text_formats();
    match name.parse::<WireFormat>() {
        Ok(format) if readable.contains(&format) => Ok(format),
        _ => {
            let keywords = keywords.iter().map(|k| (*k, *k));
            let names = keywords.chain(WireFormat::names(&readable));
            Err(UnknownNameError::new("text format", name, names))
        }
    }
}

/// The text formats the detector reads, after `first` (`auto`) if given.
fn text_format_values(first: Option<&'static str>) -> Vec<PossibleValue> {
    let formats = toolrouter::text_formats()
        .into_iter()
        .map(|f| PossibleValue::new(f.as_str()).aliases(f.aliases().iter().copied()));
    first
        .map(PossibleValue::new)
        .into_iter()
        .chain(formats)
        .collect()
}

fn dialect_or_all(name: &str) -> Result<EveryOr<Dialect>, UnknownNameError> {
    if name.eq_ignore_ascii_case(ALL) {
        return Ok(EveryOr::Every);
    }
    name.parse::<Dialect>().map(EveryOr::One).map_err(|_| {
        let names = std::iter::once((ALL, ALL)).chain(Dialect::names());
        UnknownNameError::new("dialect", name, names)
    })
}

fn dialect_values() -> Vec<PossibleValue> {
    let dialects = Dialect::ALL
        .iter()
        .map(|d| PossibleValue::new(d.as_str()).aliases(d.aliases().iter().copied()));
    std::iter::once(PossibleValue::new(ALL))
        .chain(dialects)
        .collect()
}
