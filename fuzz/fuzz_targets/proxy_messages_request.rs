//! Fuzz target: the proxy's `/v1/messages` door's request reader on arbitrary
//! bytes as the body (the checks are in `toolrouter_fuzz::doors`): it
//! never panics, refuses with 400 or 413, and what it sends upstream is one
//! JSON object bounded by a small multiple of the body.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolrouter_fuzz::doors::check(toolrouter_fuzz::doors::Door::Messages, data);
});
