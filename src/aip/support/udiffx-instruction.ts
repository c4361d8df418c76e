/**
 * What `aip.udiffx.file_changes_instruction()` returns in the simulator. AIPack returns the udiffx crate's own
 * prompt; that prose is not copied here. This text, written for the simulator, teaches the same format (the one
 * `apply_file_changes` reads), so a prompt built with it works, but its wording differs from AIPack's: a sub-agent
 * must not test for AIPack's exact sentences.
 */
export const FILE_CHANGES_INSTRUCTION = `# How to change files

To create, edit, append to, copy, rename or delete files, answer with one \`<FILE_CHANGES>\` block that holds
every change. Nothing but the change tags below goes inside it; explanations go before or after the block.

<FILE_CHANGES>
...change tags...
</FILE_CHANGES>

Close every tag, and close \`</FILE_CHANGES>\` after the last change. Use one block per answer.

## Change tags

- \`<FILE_NEW file_path="path/to/file">full content</FILE_NEW>\`: a new file, or a full rewrite of one.
- \`<FILE_PATCH file_path="path/to/file">hunks</FILE_PATCH>\`: edits inside an existing file.
- \`<FILE_APPEND file_path="path/to/file">text</FILE_APPEND>\`: text added at the end of a file (created if missing).
- \`<FILE_COPY from_path="a" to_path="b" />\`: a copy of a file.
- \`<FILE_RENAME from_path="a" to_path="b" />\`: a file moved or renamed.
- \`<FILE_DELETE file_path="path/to/file" />\`: a file removed.

Paths are relative to the project folder. Give each file at most one FILE_PATCH, with as many hunks as it
needs; add content at the end of a file with FILE_APPEND rather than a patch.

## FILE_PATCH hunks

Each hunk starts with a line holding only \`@@\` (no line numbers, no \`---\` / \`+++\` header lines). Every line
after it starts with one marker:

- a space: an unchanged line, copied exactly from the file, to locate the edit;
- \`-\`: a line removed, copied exactly from the file;
- \`+\`: a line added;
- \`~\` alone on its line, between at least two \`-\` lines above and two below: every line between them is removed too.

Give two or three unchanged lines around each edit so the place is unambiguous, and keep the file's indentation.

## Example

<FILE_CHANGES>

<FILE_PATCH file_path="src/main.ts">
@@
 import { run } from './run.ts';
+import { log } from './log.ts';

 export function main() {
-  run();
+  log(run());
 }
</FILE_PATCH>

<FILE_NEW file_path="src/log.ts">
export function log(value: unknown) {
  console.log(value);
}
</FILE_NEW>

<FILE_DELETE file_path="src/old.ts" />

</FILE_CHANGES>
`;
