//! Unit tests of URI template matching.
#![allow(clippy::unwrap_used)]

use super::*;

fn check(template: &str, uri: &str, expect: Option<&[(&str, &str)]>) {
    let pattern = UriPattern::parse(template).expect("valid template");
    let got = pattern.matches(uri);
    let expect = expect.map(|pairs| {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect::<UriVariables>()
    });
    assert_eq!(got, expect, "{template} vs {uri}");
}

#[test]
fn templates_match_one_segment_per_variable() {
    check(
        "test://template/{id}/data",
        "test://template/123/data",
        Some(&[("id", "123")]),
    );
    check(
        "test://template/{id}/data",
        "test://template/1/2/data",
        None,
    );
    check("test://template/{id}/data", "test://template//data", None);
    check(
        "file:///{dir}/{name}",
        "file:///a/b.txt",
        Some(&[("dir", "a"), ("name", "b.txt")]),
    );
    check("x://{a}", "y://b", None);
}

#[test]
fn malformed_templates_are_refused() {
    for bad in ["x://{", "x://{a}{b}", "x://{}", "x://a}", "x://{a b}"] {
        assert!(UriPattern::parse(bad).is_none(), "{bad}");
    }
}

#[tokio::test]
async fn read_prefers_exact_resources_then_templates() {
    let reg = ResourceRegistry::new();
    reg.register_text(Resource::new("t://a/fixed", "fixed"), "exact");
    reg.register_template_fn(ResourceTemplate::new("t://a/{x}", "tmpl"), |uri, vars| {
        let x = vars.get("x").cloned().unwrap_or_default();
        async move { Ok(vec![ResourceContents::text(format!("got {x}"), uri)]) }
    })
    .unwrap();
    let text = |c: &ResourceContents| match c {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        _ => String::new(),
    };
    assert_eq!(text(&reg.read("t://a/fixed").await.unwrap()[0]), "exact");
    assert_eq!(
        text(&reg.read("t://a/other").await.unwrap()[0]),
        "got other"
    );
    assert_eq!(
        reg.read("t://b").await.unwrap_err(),
        ResourceError::NotFound("t://b".to_owned())
    );
}
