//! Many calls in one stream: each fragment finds its call without looking
//! through the calls before it, in the adapters (by id, index or item id)
//! and in `TurnCollector` (by key). Each test runs its work on a thread it
//! waits a minute for: work that grows with the square of the calls fails
//! instead of hanging (linear work takes a few seconds; nothing here
//! measures speed).

use std::sync::mpsc;
use std::time::Duration;

use toolrouter_providers::{TurnCollector, TurnSummary, Wire};

const N: usize = 100_000;

/// Feeds `bytes` to `wire`'s adapter in 4 KiB pieces and collects the turn,
/// on a thread waited for at most a minute.
fn collect_within_a_minute(wire: Wire, bytes: Vec<u8>) -> TurnSummary {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut adapter = wire.adapter();
        let mut collector = TurnCollector::new();
        let mut out = Vec::new();
        for piece in bytes.chunks(4096) {
            adapter.feed(piece, &mut out).unwrap();
            collector.extend(&out);
            out.clear();
        }
        adapter.finish(&mut out).unwrap();
        collector.extend(&out);
        let _ = tx.send(collector.finish());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the calls were not collected: the work grows faster than the calls")
}

/// Checks `N` calls `f` with arguments `{"n": i}`, in order.
fn check(summary: &TurnSummary) {
    assert_eq!(summary.calls.len(), N);
    assert!(summary.partial_calls.is_empty());
    for (i, call) in summary.calls.iter().enumerate() {
        assert_eq!(call.name, "f");
        assert_eq!(call.arguments["n"], i, "call {i}");
    }
    assert_eq!(summary.stop.as_str(), "tool_use");
}

#[test]
fn a_hundred_thousand_openai_chat_calls_in_one_stream() {
    let mut s = String::new();
    for i in 0..N {
        s.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{i},\"id\":\"call_{i}\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{\\\"n\\\":{i}}}\"}}}}]}}}}]}}\n\n"
        ));
    }
    s.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    check(&collect_within_a_minute(Wire::OpenAiChat, s.into_bytes()));
}

#[test]
fn a_hundred_thousand_responses_calls_in_one_stream() {
    let mut s = String::new();
    for i in 0..N {
        s.push_str(&format!(
            "data: {{\"type\":\"response.output_item.added\",\"output_index\":{i},\"item\":{{\"type\":\"function_call\",\"id\":\"fc_{i}\",\"call_id\":\"call_{i}\",\"name\":\"f\",\"arguments\":\"\"}}}}\n\n\
             data: {{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_{i}\",\"output_index\":{i},\"delta\":\"{{\\\"n\\\":{i}}}\"}}\n\n\
             data: {{\"type\":\"response.output_item.done\",\"output_index\":{i},\"item\":{{\"type\":\"function_call\",\"id\":\"fc_{i}\",\"status\":\"completed\"}}}}\n\n"
        ));
    }
    s.push_str(
        "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n",
    );
    check(&collect_within_a_minute(
        Wire::OpenAiResponses,
        s.into_bytes(),
    ));
}
