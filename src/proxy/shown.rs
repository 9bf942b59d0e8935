//! `ShownCalls`: the calls a front door's writer has shown its client
//! (`ChunkWriter`, `EventWriter`, `ResponseWriter`), kept so that no event
//! scans them: an event finds its call by the router's index, a broken call
//! is the first one of its dialect not ended, both in constant or
//! logarithmic time however many calls the answer holds. Each writer keeps
//! what it writes of a call (name, block, item) in its own list, at the
//! same positions.

use std::collections::{BTreeSet, HashMap};

use crate::core::WireFormat;

/// The calls shown so far, by position (the order they were shown).
#[derive(Debug, Default)]
pub(crate) struct ShownCalls {
    calls: Vec<Shown>,
    /// The latest position of each router index.
    by_route: HashMap<usize, usize>,
    /// The calls not ended, by dialect then position.
    open: BTreeSet<(WireFormat, usize)>,
    /// How many calls ended.
    n_ended: usize,
}

/// One shown call.
#[derive(Debug)]
struct Shown {
    route_index: usize,
    format: WireFormat,
    ended: bool,
}

impl ShownCalls {
    /// A call is shown: the router's `route_index`, its dialect. Its
    /// position.
    pub(crate) fn add(&mut self, route_index: usize, format: WireFormat) -> usize {
        let position = self.calls.len();
        self.calls.push(Shown {
            route_index,
            format,
            ended: false,
        });
        self.by_route.insert(route_index, position);
        self.open.insert((format, position));
        position
    }

    /// How many calls were shown.
    pub(crate) fn len(&self) -> usize {
        self.calls.len()
    }

    /// The position of the latest call with the router's `route_index`.
    pub(crate) fn position(&self, route_index: usize) -> Option<usize> {
        // Most events are for the call shown last.
        match self.calls.last() {
            Some(last) if last.route_index == route_index => Some(self.calls.len() - 1),
            _ => self.by_route.get(&route_index).copied(),
        }
    }

    /// Whether the call at `position` ended (or is no call).
    pub(crate) fn is_ended(&self, position: usize) -> bool {
        self.calls.get(position).is_none_or(|c| c.ended)
    }

    /// The call at `position` ended.
    pub(crate) fn end(&mut self, position: usize) {
        if let Some(call) = self.calls.get_mut(position)
            && !call.ended
        {
            call.ended = true;
            self.n_ended += 1;
            self.open.remove(&(call.format, position));
        }
    }

    /// Whether a call ended.
    pub(crate) fn any_ended(&self) -> bool {
        self.n_ended > 0
    }

    /// The first call of dialect `format` not ended.
    pub(crate) fn first_open_of(&self, format: WireFormat) -> Option<usize> {
        self.open
            .range((format, 0)..)
            .next()
            .filter(|(f, _)| *f == format)
            .map(|(_, position)| *position)
    }

    /// The calls not ended, in the order they were shown (the answer's end
    /// reads them once).
    pub(crate) fn open(&self) -> impl Iterator<Item = usize> + '_ {
        self.calls
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.ended)
            .map(|(position, _)| position)
    }
}

#[cfg(test)]
pub(crate) mod tests;
