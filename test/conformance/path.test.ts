import { conformance, type Case } from './support.ts';

const P = 'aip_path.rs';
const L = (s: string) => JSON.stringify(s);
const cases: Case[] = [];
const each = (test: string, fn: string, paths: string[], want: boolean) => {
  for (const p of paths) cases.push({ up: `${P}::${test}`, lua: `return aip.path.${fn}(${L(p)})`, expect: want });
};

each('test_lua_path_exists_true', 'exists', ['./agent-script/agent-hello.aip', 'agent-script/agent-hello.aip', './sub-dir-a/agent-hello-2.aip', 'sub-dir-a/agent-hello-2.aip', './sub-dir-a/', 'sub-dir-a', './sub-dir-a/../', './sub-dir-a/..'], true);
each('test_lua_path_exists_false', 'exists', ['./no file .rs', 'some/no-file.md', './s do/', 'no-dir/at/all'], false);
each('test_lua_path_is_file_true', 'is_file', ['./agent-script/agent-hello.aip', 'agent-script/agent-hello.aip', './sub-dir-a/agent-hello-2.aip', 'sub-dir-a/agent-hello-2.aip', './sub-dir-a/../agent-script/agent-hello.aip'], true);
each('test_lua_path_is_file_false', 'is_file', ['./no-file', 'no-file.txt', 'sub-dir-a/'], false);
each('test_lua_path_is_dir_true', 'is_dir', ['./sub-dir-a', 'sub-dir-a', './sub-dir-a/..'], true);
each('test_lua_path_is_dir_false', 'is_dir', ['./agent-hello.aipack', 'agent-hello.aipack', './sub-dir-a/agent-hello-2.aipack', './sub-dir-a/other-path', 'nofile.txt', './s rc/'], false);

for (const [p, want] of [['./agent-hello.aipack', '.'], ['./', ''], ['.', ''], ['./sub-dir/file.txt', './sub-dir'], ['./sub-dir/file', './sub-dir'], ['./sub-dir/', '.'], ['./sub-dir', '.']]) {
  cases.push({ up: `${P}::test_lua_path_parent`, lua: `return aip.path.parent(${L(p)})`, expect: want });
}
for (const [base, args, want] of [
  ['./', '"file.txt"', './file.txt'],
  ['./', '{"my-dir","file.txt"}', './my-dir/file.txt'],
  ['', '{"my-dir","file.txt"}', 'my-dir/file.txt'],
  ['', '{"my-dir/","//file.txt"}', 'my-dir/file.txt'],
  ['some-base/', '"my-dir/","file.txt"', 'some-base/my-dir/file.txt'],
  ['a', '"b", "c"', 'a/bc'],
  ['a/', '"b/", "c/"', 'a/b/c/'],
  ['root/', '{"user", "docs"}, "projectA", {"report", "final.pdf"}', 'root/user/docsprojectAreport/final.pdf'],
]) {
  cases.push({ up: `${P}::test_lua_path_join`, lua: `return aip.path.join(${L(base)}, ${args})`, expect: want });
}
for (const [p, parent, name] of [
  ['some/path/to_file.md', 'some/path', 'to_file.md'],
  ['folder/file.txt', 'folder', 'file.txt'],
  ['justafile.md', '', 'justafile.md'],
  ['/absolute/path/file.log', '/absolute/path', 'file.log'],
  ['/file_at_root', '/', 'file_at_root'],
  ['trailing/slash/', 'trailing', 'slash'],
]) {
  cases.push({ up: `${P}::test_lua_path_split`, lua: `local parent, filename = aip.path.split(${L(p)})\nreturn { parent, filename }`, expect: [parent, name] });
}
cases.push(
  {
    up: `${P}::test_lua_path_sort_by_globs_strings`,
    lua: 'local files = {"src/main.rs", "README.md", "src/lib.rs", "Cargo.toml"}\nreturn aip.path.sort_by_globs(files, {"*.toml", "*.md"})',
    expect: ['Cargo.toml', 'README.md', 'src/lib.rs', 'src/main.rs'],
  },
  {
    up: `${P}::test_lua_path_sort_by_globs_no_match_start`,
    lua: 'local files = {"src/main.rs", "README.md", "src/lib.rs", "Cargo.toml"}\nreturn aip.path.sort_by_globs(files, {"*.toml"}, "start")',
    expect: ['README.md', 'src/lib.rs', 'src/main.rs', 'Cargo.toml'],
  },
  {
    up: `${P}::test_lua_path_sort_by_globs_table_options`,
    lua: 'local files = {"src/main.rs", "README.md", "Cargo.toml"}\nreturn aip.path.sort_by_globs(files, {"*.toml", "*.md"}, {no_match_position = "start"})',
    expect: ['src/main.rs', 'Cargo.toml', 'README.md'],
  },
);

conformance('aip.path', cases);
