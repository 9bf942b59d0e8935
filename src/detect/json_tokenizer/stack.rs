//! The tokenizer's stack of open containers.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Container {
    Object,
    Array,
}

/// The open containers, innermost last: one bit per level (set for an
/// array) for the first 64 levels, a vector only beyond them. An envelope
/// is a few levels deep, so a tokenizer allocates nothing for its stack.
#[derive(Debug, Default)]
pub(super) struct ContainerStack {
    bits: u64,
    depth: usize,
    deeper: Vec<Container>,
}

impl ContainerStack {
    const INLINE: usize = 64;

    #[inline]
    pub(super) fn push(&mut self, c: Container) {
        if self.depth < Self::INLINE {
            let bit = 1u64 << self.depth;
            self.bits = (self.bits & !bit) | if c == Container::Array { bit } else { 0 };
        } else {
            self.deeper.push(c);
        }
        self.depth += 1;
    }

    #[inline]
    pub(super) fn last(&self) -> Option<Container> {
        match self.depth {
            0 => None,
            d if d <= Self::INLINE => Some(if self.bits >> (d - 1) & 1 == 1 {
                Container::Array
            } else {
                Container::Object
            }),
            _ => self.deeper.last().copied(),
        }
    }

    #[inline]
    pub(super) fn pop(&mut self) {
        if self.depth > Self::INLINE {
            self.deeper.pop();
        }
        self.depth = self.depth.saturating_sub(1);
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.depth == 0
    }
}
