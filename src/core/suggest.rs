//! "Did you mean": known names close to an unknown one (a tool, a format, a
//! dialect, a provider), with bounded work.
//!
//! An unknown name is caller input of any size, and the registry may hold
//! thousands of tools. The work is bounded before any comparison: a name over
//! [`MAX_COMPARED_LEN`] bytes (no tool, format, dialect or provider name can be
//! that long) gets no suggestion at all; a candidate whose length differs from
//! the name's by more than the distance allowed is skipped without comparing;
//! the edit distance is computed only within that bound (O(len · bound)
//! cells); and only the best [`MAX_SUGGESTIONS`] are kept.

/// The longest name compared: a tool name's limit (`MAX_TOOL_NAME_LEN`, which
/// the registry holds to this), and more than any format, dialect or provider
/// name.
pub(crate) const MAX_COMPARED_LEN: usize = 64;

/// At most this many names are suggested.
pub(crate) const MAX_SUGGESTIONS: usize = 3;

/// Up to [`MAX_SUGGESTIONS`] known names closest to `wanted`, best first.
pub(crate) fn closest_names<'a>(wanted: &str, names: impl Iterator<Item = &'a str>) -> Vec<String> {
    rank_names(wanted, names).names
}

/// The suggestions, and the work spent finding them (for tests).
#[derive(Debug, Default)]
pub(crate) struct Ranking {
    /// Best first.
    pub(crate) names: Vec<String>,
    /// Names compared at all (the length filter passed).
    pub(crate) n_compared: usize,
    /// Edit-distance cells computed over all comparisons.
    pub(crate) n_cells: usize,
}

/// Ranks known names against `wanted`: a name that contains it or is
/// contained in it (ignoring ASCII case) ranks first, then names within an
/// edit distance of half the longer length (at least 2), closest first, ties
/// by name.
pub(crate) fn rank_names<'a>(wanted: &str, names: impl Iterator<Item = &'a str>) -> Ranking {
    let mut ranking = Ranking::default();
    if wanted.is_empty() || wanted.len() > MAX_COMPARED_LEN {
        return ranking;
    }
    let wanted = wanted.as_bytes();
    // (score, name), sorted, at most MAX_SUGGESTIONS long.
    let mut best: Vec<(usize, &str)> = Vec::with_capacity(MAX_SUGGESTIONS + 1);
    for name in names {
        let bound = (wanted.len().max(name.len()) / 2).max(2);
        let related = contains_ignore_case(name.as_bytes(), wanted)
            || contains_ignore_case(wanted, name.as_bytes());
        let score = if related {
            0
        } else if wanted.len().abs_diff(name.len()) > bound {
            continue;
        } else {
            ranking.n_compared += 1;
            match bounded_distance(wanted, name.as_bytes(), bound, &mut ranking.n_cells) {
                Some(distance) => distance,
                None => continue,
            }
        };
        let at = best.partition_point(|&(s, n)| (s, n) <= (score, name));
        if at < MAX_SUGGESTIONS {
            best.insert(at, (score, name));
            best.truncate(MAX_SUGGESTIONS);
        }
    }
    ranking.names = best.into_iter().map(|(_, n)| n.to_owned()).collect();
    ranking
}

/// Whether `needle` occurs in `haystack`, ASCII case ignored. Both are at most
/// [`MAX_COMPARED_LEN`] bytes here (the known names are no longer).
fn contains_ignore_case(haystack: &[u8], needle: &[u8]) -> bool {
    needle.len() <= haystack.len()
        && haystack
            .windows(needle.len())
            .any(|window| window.eq_ignore_ascii_case(needle))
}

/// The Levenshtein distance of `a` and `b` (bytes, ASCII case ignored) when it
/// is at most `bound`, else `None`. Only the band of cells within `bound` of
/// the diagonal is computed: O(len · bound).
fn bounded_distance(a: &[u8], b: &[u8], bound: usize, n_cells: &mut usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > bound {
        return None;
    }
    let over = bound + 1;
    // prev[j] and row[j]: distance of a[..i] and b[..j]; cells outside the band hold `over`.
    let mut prev: Vec<usize> = (0..=b.len()).map(|j| j.min(over)).collect();
    let mut row = vec![over; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        let i = i + 1;
        let lo = i.saturating_sub(bound).max(1);
        let hi = (i + bound).min(b.len());
        row.fill(over);
        row[0] = if i <= bound { i } else { over };
        let mut row_min = row[0];
        for j in lo..=hi {
            *n_cells += 1;
            let substitute = prev[j - 1] + usize::from(!ca.eq_ignore_ascii_case(&b[j - 1]));
            let cell = substitute.min(prev[j] + 1).min(row[j - 1] + 1).min(over);
            row[j] = cell;
            row_min = row_min.min(cell);
        }
        if row_min > bound {
            return None;
        }
        std::mem::swap(&mut prev, &mut row);
    }
    let distance = prev[b.len()];
    (distance <= bound).then_some(distance)
}

#[cfg(test)]
mod tests;
