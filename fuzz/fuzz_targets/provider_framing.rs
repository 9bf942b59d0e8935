//! Fuzz target: the provider wire adapters and their framings (SSE, NDJSON, AWS
//! binary event stream) on arbitrary bytes.
//!
//! The first byte picks the adapter (bits 0-2, modulo 6, index `Wire::ALL`:
//! OpenAI Chat, OpenAI Responses, Anthropic, Gemini, Ollama, Bedrock), a small
//! frame limit (bit 3: 64 bytes instead of 16 MiB, so that oversize SSE lines,
//! NDJSON lines and event-stream frames are reached) and the cut positions
//! (bits 4-7); the rest is the provider's response body.
//!
//! Checked: no panic; the bytes fed in one piece and cut into pieces of 1 to
//! 16 bytes (sizes drawn from the seed) give the same deltas, and the same
//! `AdapterError` if the stream cannot be read on (feeding stops there); and
//! `TurnCollector` folds the deltas into a summary without panicking.
#![no_main]

use toolrouter::providers::{AdapterConfig, AdapterError, ProviderDelta, TurnCollector, Wire};

/// Every delta the adapter gives, and the error that stopped it, if any.
fn run(
    wire: Wire,
    config: AdapterConfig,
    pieces: &[&[u8]],
) -> (Vec<ProviderDelta>, Option<AdapterError>) {
    let mut adapter = wire.adapter_with(config);
    assert_eq!(adapter.wire(), wire);
    let mut out = Vec::new();
    for piece in pieces {
        if let Err(e) = adapter.feed(piece, &mut out) {
            return (out, Some(e));
        }
    }
    match adapter.finish(&mut out) {
        Ok(()) => (out, None),
        Err(e) => (out, Some(e)),
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&seed, body)) = data.split_first() else {
        return;
    };
    let wire = Wire::ALL[usize::from(seed & 0x07) % Wire::ALL.len()];
    let config = if seed & 0x08 != 0 {
        AdapterConfig {
            max_frame_bytes: 64,
        }
    } else {
        AdapterConfig::default()
    };
    let whole = run(wire, config, &[body]);

    // Pieces of 1..=16 bytes, from a generator seeded by the high bits.
    let mut state = u32::from(seed >> 4).wrapping_mul(0x9E37_79B9) | 1;
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < body.len() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let len = (state % 16) as usize + 1;
        let end = (at + len).min(body.len());
        pieces.push(&body[at..end]);
        at = end;
    }
    let split = run(wire, config, &pieces);
    assert_eq!(
        split,
        whole,
        "split-invariance ({wire}, {} pieces)",
        pieces.len()
    );

    let mut collector = TurnCollector::new();
    collector.extend(&whole.0);
    let summary = collector.finish();
    let _ = summary.to_json();
});
