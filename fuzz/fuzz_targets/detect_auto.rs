//! Fuzz target: split-invariance and conservation of the detector (auto).
#![no_main]

#[allow(unused_imports)]
use toolrouter::WireFormat;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolrouter_fuzz::check(None, data);
});
