//! Provider wire adapters: raw provider bytes in, provider-neutral deltas out.
