//! Fuzz target: split-invariance and conservation of the detector (anthropic_invoke).
#![no_main]

#[allow(unused_imports)]
use toolrouter::WireFormat;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolrouter_fuzz::check(Some(WireFormat::AnthropicInvoke), data);
});
