/**
 * `aip.code.comment_line(lang_ext, text)`: one comment line in the syntax of a file extension
 * (case-insensitive, leading "." allowed). Unknown extensions get `//`.
 */
import type { AipNamespaceFactory } from './types.ts';
import { reqStr } from './pure-args.ts';

type Style = readonly [open: string, close: string];

const SLASH: Style = ['//', ''];
const HASH: Style = ['#', ''];
const DASH: Style = ['--', ''];
const HTML: Style = ['<!--', '-->'];
const BLOCK: Style = ['/*', '*/'];

const STYLES: Record<string, Style> = {};
const assign = (style: Style, exts: string): void => {
  for (const e of exts.split(' ')) STYLES[e] = style;
};
assign(SLASH, 'rs js mjs cjs jsx ts mts cts tsx go java c h cc cpp cxx hpp hh hxx cs swift kt kts scala sc dart php zig groovy gradle jsonc json5 scss sass less proto fs fsx v sol d m mm');
assign(HASH, 'py pyi sh bash zsh fish rb pl pm r toml yaml yml ps1 psm1 nim ex exs cmake tf tfvars hcl mk makefile dockerfile containerfile conf cfg gitignore dockerignore env properties jl cr coffee awk sed tcl nix');
assign(DASH, 'lua sql hs lhs elm ada adb ads purs sqlite');
assign(HTML, 'html htm xhtml xml svg md markdown mdx vue svelte xsl xslt plist csproj');
assign(BLOCK, 'css');
assign([';', ''], 'ini lisp lsp cl el clj cljs cljc edn scm ss rkt asm s');
assign(['%', ''], 'tex sty cls erl hrl');
assign(['"', ''], 'vim');
assign(['REM', ''], 'bat cmd');
assign(["'", ''], 'vb vbs bas');

export function commentLine(langExt: string, text: string): string {
  const key = langExt.trim().replace(/^\./, '').toLowerCase();
  const [open, close] = STYLES[key] ?? SLASH;
  return close ? `${open} ${text} ${close}` : `${open} ${text}`;
}

function comment_line(langExt: unknown, text: unknown): string {
  return commentLine(reqStr(langExt, 'aip.code.comment_line', 'lang_ext'), reqStr(text, 'aip.code.comment_line', 'comment_content'));
}

export const code: AipNamespaceFactory = () => ({ comment_line });
