//! Codes about files and the project manifest, with the text `oc explain CODE` prints.
//! Codes are never renamed or reused.

oc_diag::codes! {
    NOT_UTF8 = "oc::file::not_utf8", "a file is not UTF-8 text",
"oc reads source files as UTF-8. This file holds bytes that are not valid \
UTF-8 (often a file saved in another encoding, or a binary file with a `.oc` name). The rest of \
the file is still checked with the bad bytes replaced.\n\nFix: save the file as UTF-8, or rename \
it if it is not a source file.";
    UNREADABLE = "oc::file::unreadable", "a file of the project cannot be read",
"A `.oc` file or a map found in the project could not be read: it is not a regular file (a FIFO, \
a device or a socket with a source's name: oc never reads those, since a read could block \
forever), it is larger than the cap on source files (16 MiB, see the README's Limits), or the \
system refused it. The other files are still checked.\n\nFix: replace it with a regular file, \
or list it under `ignore` in `oc.toml`.";
    OUTSIDE_PROJECT = "oc::file::outside_project", "a file of the project is a link to a file outside it",
"oc reads only files inside the project root (the folder holding `oc.toml`, or the folder of the \
input without one), and checks that after resolving symbolic links: a link `pw.oc -> /etc/passwd` \
is refused, not read. The same holds for imports, maps, map images, a map's rules and the files \
a battle log names.\n\nFix: copy the file into the project, or move `oc.toml` up to a folder that \
holds both.";
    NAME_NOT_UTF8 = "oc::file::name_not_utf8", "a file's name is not UTF-8",
"Paths in oc (imports, a scenario's map, logs) are UTF-8 text, so a file whose name is not UTF-8 \
cannot be named by any other file. It is skipped and reported; the rest of the project is \
checked.\n\nFix: rename the file (the message shows its name with the bad bytes replaced).";
    MANIFEST_TOML = "oc::manifest::toml", "oc.toml is not valid TOML",
"`oc.toml` marks the project root and holds its settings. This one does not parse as TOML.\n\n\
Fix: correct the syntax at the place shown.";
    MANIFEST_FIELD = "oc::manifest::field", "an oc.toml key is unknown or of the wrong type",
"`oc.toml` has a table `[project]`, with the keys `name` (a string), `ruleset` (a string: \
the default `--ruleset` of `oc forecast`, `oc duel` and `oc matrix`, a built-in name or a path \
relative to the root) and `ignore` (a list of globs, relative to the root, of paths `oc check` \
skips when it walks a folder: `*` within one path part, `**` across parts, a bare name matches \
any part); and a table `[doc]` with `cname` (the domain name `oc doc` writes into the site as its \
`CNAME` file, for GitHub Pages: `rules.example.org`). Unknown keys are refused so typos do not \
pass silently.\n\nFix: use the keys listed here.";
    MANIFEST_RULESET = "oc::manifest::ruleset", "oc.toml names a ruleset that is not there",
"`ruleset` in `oc.toml` is the rules `oc forecast`, `oc duel`, `oc matrix` and `oc balance` use \
when run in the project without `--ruleset`: a built-in ruleset's name (`officers_chess`, \
`officers_chess_v06`, `stamina`, `battlestorm`, `skirmish` or an alias) or the path of a `.oc` \
file or folder inside the project, relative to its root. This one is neither, so those commands \
would refuse to run without `--ruleset`; `oc check` warns of it first (the project's files are \
checked as ever).\n\nFix: name a built-in ruleset, or correct the path (it is read inside the \
project only).";
}
