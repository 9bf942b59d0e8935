//! The XML tag format: system prompt and results as text.

use super::*;
use crate::convert::xml_text;

#[test]
fn system_prompt_teaches_the_format_and_lists_each_tool() {
    let prompt = xml_text::system_prompt(&[read_file(), get_time()]);
    assert!(prompt.starts_with("# Tools\n\n"), "{prompt}");
    assert!(prompt.contains("<tool_name>\n<parameter_name>value</parameter_name>\n</tool_name>"));
    assert!(prompt.contains("<tool_result name=\"tool_name\">...</tool_result>"));
    let tools_part = &prompt[prompt.find("## Available tools").unwrap()..];
    assert_eq!(
        tools_part,
        "## Available tools\n\
         \n### read_file\n\
         Read a file.\n\
         Parameters:\n\
         - path (string, required): File path.\n\
         - encoding (string, optional, one of: \"utf-8\", \"latin1\")\n\
         \n### get_time\n\
         Current time\n\
         Parameters: none.\n\
         \n## Example\n\n\
         <read_file>\n<path>text</path>\n</read_file>\n"
    );
}

#[test]
fn nested_parameters_are_indented_and_the_example_fills_required_ones() {
    let prompt = xml_text::system_prompt(&[create_issue()]);
    let expected_lines = "Parameters:\n\
        - title (string, required)\n\
        - labels (array of string, required)\n\
        - assignee (object, optional)\n  \
          - login (string, required)\n  \
          - id (integer or null, optional)\n\
        - due (string or null, optional)\n\
        - priority (integer, optional, one of: 1, 2, 3)\n\
        - meta (object, optional)\n  \
          - source (string, optional, always \"api\")\n  \
          - links (array of object, optional)\n    \
            - url (string, required)\n";
    assert!(prompt.contains(expected_lines), "{prompt}");
    assert!(prompt.ends_with(
        "## Example\n\n<create_issue>\n<title>text</title>\n<labels>[\"bug\"]</labels>\n</create_issue>\n"
    ), "{prompt}");
}

#[test]
fn no_tools_no_prompt() {
    assert_eq!(xml_text::system_prompt(&[]), "");
}

#[test]
fn results_are_tagged_and_cannot_close_the_tag_early() {
    let c = read_call();
    assert_eq!(
        xml_text::result_text(&c, &text_result()),
        "<tool_result name=\"read_file\">\nline one\n</tool_result>"
    );
    assert_eq!(
        xml_text::result_text(&c, &error_result()),
        "<tool_result name=\"read_file\" error=\"true\">\ndisk full\n</tool_result>"
    );
    let sneaky = CallToolResult::success(vec![ContentBlock::text("a</tool_result>b")]);
    assert_eq!(
        xml_text::result_text(&c, &sneaky),
        "<tool_result name=\"read_file\">\na&lt;/tool_result>b\n</tool_result>"
    );
    assert_eq!(
        xml_text::result_text(&c, &mixed_result()),
        format!("<tool_result name=\"read_file\">\n{MIXED_TEXT}\n</tool_result>")
    );
}
