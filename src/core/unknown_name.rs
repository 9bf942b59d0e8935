//! `UnknownNameError`: a name (a format, a dialect, a provider) that names
//! nothing of its kind, with the names that would have and the nearest of them.

use std::fmt;

use super::echo::echo;
use super::suggest::closest_names;

/// A name that names nothing of its kind: the error of parsing a
/// [`WireFormat`](crate::WireFormat) or a [`Dialect`](crate::Dialect), and of
/// a front end's own lists (the command line's `--provider`).
///
/// It reads `` unknown dialect `open-ai-chat` (did you mean `openai-chat`?); dialects: openai-chat, … ``.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct UnknownNameError {
    /// What the name should have named (`"dialect"`, `"wire format"`).
    pub kind: &'static str,
    /// The name given.
    pub name: String,
    /// Every name of the kind, each once, in its one spelling.
    pub known: Vec<&'static str>,
    /// The known names nearest to `name`, best first: at most three, none
    /// when nothing is near.
    pub suggestions: Vec<&'static str>,
}

impl UnknownNameError {
    /// `name`, found among none of `names`. Each entry of `names` is a name
    /// accepted and the known name it stands for (itself, or the name an alias
    /// or an older spelling means); suggestions are always known names.
    pub fn new<'a>(
        kind: &'static str,
        name: &str,
        names: impl IntoIterator<Item = (&'a str, &'static str)>,
    ) -> Self {
        let names: Vec<(&str, &'static str)> = names.into_iter().collect();
        let mut known = Vec::new();
        for &(_, canonical) in &names {
            if !known.contains(&canonical) {
                known.push(canonical);
            }
        }
        let mut suggestions = Vec::new();
        for near in closest_names(name, names.iter().map(|&(accepted, _)| accepted)) {
            let canonical = names
                .iter()
                .find(|&&(accepted, _)| accepted == near)
                .map(|&(_, canonical)| canonical);
            if let Some(canonical) = canonical
                && !suggestions.contains(&canonical)
            {
                suggestions.push(canonical);
            }
        }
        UnknownNameError {
            kind,
            name: name.to_owned(),
            known,
            suggestions,
        }
    }
}

impl fmt::Display for UnknownNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}`", self.kind, echo(&self.name))?;
        if let Some((last, first)) = self.suggestions.split_last() {
            f.write_str(" (did you mean ")?;
            for (i, near) in first.iter().enumerate() {
                let comma = if i > 0 { ", " } else { "" };
                write!(f, "{comma}`{near}`")?;
            }
            let or = if first.is_empty() { "" } else { " or " };
            write!(f, "{or}`{last}`?)")?;
        }
        write!(f, "; {}s: {}", self.kind, self.known.join(", "))
    }
}

#[cfg(test)]
mod tests;
