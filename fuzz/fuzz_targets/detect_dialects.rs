//! Fuzz target: split-invariance and conservation with every dialect on
//! (the open-model dialects included), reasoning options from the seed byte.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolrouter_fuzz::check_dialects(data);
});
