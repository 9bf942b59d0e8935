//! Fuzz target: split-invariance and conservation of the detector (glm47).
#![no_main]

#[allow(unused_imports)]
use toolrouter::WireFormat;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolrouter_fuzz::check(Some(WireFormat::Glm47), data);
});
