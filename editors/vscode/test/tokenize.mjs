// Tokenizes every `.oc` file of the repository's standard library, scenarios and examples with
// `syntaxes/oc.tmLanguage.json` through `vscode-textmate` + `vscode-oniguruma` (the engine VS Code
// itself runs) and checks chosen scopes, that every keyword of `grammar/oc.pest` is a keyword, and
// that no state leaks: wherever the braces of a file are balanced outside comments and strings
// (between top-level items, after a one-line item), the rule stack is back at the grammar's root.
//
// Run by `tests/vscode_grammar.rs`, or by hand: `npm install` here, then `npm test`.
// `OC_VSCODE_TEST_MODULES` names a folder whose `node_modules` holds the two packages.
// Exit status 0: every check passed; 1: a check failed (each failure printed); 2: set-up failed.

import { createRequire } from 'node:module';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const extension = resolve(here, '..');
const repo = resolve(extension, '..', '..');
const modules = process.env.OC_VSCODE_TEST_MODULES;
const require = createRequire(modules ? join(resolve(modules), 'resolve.js') : join(extension, 'package.json'));

let vsctm, onig;
try {
    vsctm = require('vscode-textmate');
    onig = require('vscode-oniguruma');
} catch (e) {
    console.error(`cannot load vscode-textmate / vscode-oniguruma: ${e.message}`);
    process.exit(2);
}

const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
await onig.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));

const grammarPath = join(extension, 'syntaxes', 'oc.tmLanguage.json');
const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
        createOnigScanner: (patterns) => new onig.OnigScanner(patterns),
        createOnigString: (s) => new onig.OnigString(s),
    }),
    loadGrammar: async (scopeName) =>
        scopeName === 'source.oc' ? vsctm.parseRawGrammar(readFileSync(grammarPath, 'utf8'), grammarPath) : null,
});
const grammar = await registry.loadGrammar('source.oc');
if (!grammar) {
    console.error('source.oc did not load');
    process.exit(2);
}

const failures = [];
let checks = 0;
function check(ok, message) {
    checks += 1;
    if (!ok) failures.push(message);
}

// One file's lines, each with its tokens ({start, end, text, scopes}) and the rule stack after it.
function tokenize(text) {
    const lines = text.split(/\r?\n/);
    let state = vsctm.INITIAL;
    return lines.map((line) => {
        const r = grammar.tokenizeLine(line, state);
        state = r.ruleStack;
        const tokens = r.tokens.map((t) => ({
            start: t.startIndex,
            end: Math.min(t.endIndex, line.length),
            text: line.slice(t.startIndex, t.endIndex),
            scopes: t.scopes,
        }));
        return { line, tokens, state, stoppedEarly: r.stoppedEarly };
    });
}

const hasScope = (token, prefix) => token.scopes.some((s) => s === prefix || s.startsWith(prefix + '.'));
const show = (token) => (token ? `\`${token.text}\` [${token.scopes.join(' ')}]` : 'no token');

// Brace depth and block-comment depth at the end of each line, by the language's own rules:
// `//` to the end of the line, nested `/* */`, strings on one line with `\` escapes.
function depths(lines) {
    let braces = 0;
    let comments = 0;
    return lines.map((line) => {
        let inString = false;
        for (let i = 0; i < line.length; i++) {
            const c = line[i];
            const next = line[i + 1];
            if (comments > 0) {
                if (c === '/' && next === '*') { comments++; i++; }
                else if (c === '*' && next === '/') { comments--; i++; }
            } else if (inString) {
                if (c === '\\') i++;
                else if (c === '"') inString = false;
            } else if (c === '/' && next === '/') {
                break;
            } else if (c === '/' && next === '*') {
                comments++; i++;
            } else if (c === '"') {
                inString = true;
            } else if (c === '{') {
                braces++;
            } else if (c === '}') {
                braces--;
            }
        }
        return { braces, comments };
    });
}

function ocFiles(dir) {
    const out = [];
    for (const name of readdirSync(dir).sort()) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) out.push(...ocFiles(path));
        else if (name.endsWith('.oc')) out.push(path);
    }
    return out;
}

// ------------------------------------------------------------------ the shipped files
const roots = ['crates/oc-compiler/std', 'scenarios', 'examples'].map((d) => join(repo, d));
const files = new Map();
let lineCount = 0;
let tokenCount = 0;
let rootChecks = 0;
let commentLines = 0;
for (const path of roots.flatMap(ocFiles)) {
    const rel = relative(repo, path);
    const lines = tokenize(readFileSync(path, 'utf8'));
    files.set(rel, lines);
    lineCount += lines.length;
    const d = depths(lines.map((l) => l.line));
    lines.forEach((l, i) => {
        tokenCount += l.tokens.length;
        check(!l.stoppedEarly, `${rel}:${i + 1}: tokenizing stopped early`);
        for (const t of l.tokens) {
            check(!t.scopes.some((s) => s.startsWith('invalid')), `${rel}:${i + 1}: invalid scope on ${show(t)}`);
        }
        if (/^\s*\/\//.test(l.line) && d[i].comments === 0 && (i === 0 || d[i - 1].comments === 0)) {
            commentLines += 1;
            const code = l.tokens.filter((t) => t.text.trim() !== '' && !hasScope(t, 'comment.line.double-slash.oc'));
            check(code.length === 0, `${rel}:${i + 1}: a \`//\` line has tokens outside the comment: ${code.map(show).join(', ')}`);
        }
        if (d[i].braces === 0 && d[i].comments === 0) {
            rootChecks += 1;
            check(l.state.depth === 1,
                `${rel}:${i + 1}: after a complete item the rule stack is ${l.state.depth} deep, not at the root ` +
                `(last token ${show(l.tokens[l.tokens.length - 1])})`);
        }
    });
    check(lines[lines.length - 1].state.depth === 1, `${rel}: the file ends with the rule stack not at the root`);
}
check(files.size >= 20, `only ${files.size} .oc files found`);

// The token that covers `word` on the first line of `file` that contains `context` (searched from
// where `context` starts); the token must be exactly `word`.
function tokenOf(file, context, word) {
    const lines = files.get(file);
    if (!lines) return { error: `${file}: not tokenized` };
    for (const [i, l] of lines.entries()) {
        const at = l.line.indexOf(context);
        if (at < 0) continue;
        const col = l.line.indexOf(word, at);
        if (col < 0) return { error: `${file}:${i + 1}: \`${word}\` not in \`${context}\`` };
        const token = l.tokens.find((t) => t.start <= col && col < t.end);
        return { token, where: `${file}:${i + 1}:${col + 1}`, col };
    }
    return { error: `${file}: no line contains \`${context}\`` };
}

function expectScope(file, context, word, scope) {
    const { token, where, col, error } = tokenOf(file, context, word);
    if (error) return check(false, error);
    check(token && token.start === col && token.text === word && hasScope(token, scope),
        `${where}: \`${word}\` should be one token scoped ${scope}, got ${show(token)}`);
}

const STD = 'crates/oc-compiler/std/ratings';
const expectations = [
    // comments
    [`${STD}/ruleset.oc`, "// Officer's Chess, ratings revision", '//', 'comment.line.double-slash.oc'],
    // keywords
    [`${STD}/ruleset.oc`, 'ruleset officers_chess', 'ruleset', 'keyword.declaration.oc'],
    [`${STD}/ruleset.oc`, 'scale Rating', 'scale', 'keyword.declaration.oc'],
    [`${STD}/ruleset.oc`, 'class_range Rating', 'class_range', 'keyword.declaration.oc'],
    [`${STD}/ruleset.oc`, 'inventory 3', 'inventory', 'keyword.other.oc'],
    [`${STD}/ruleset.oc`, '_triangle = if (attacker', 'if', 'keyword.control.conditional.oc'],
    [`${STD}/ruleset.oc`, '_triangle = if (attacker', 'then', 'keyword.control.conditional.oc'],
    [`${STD}/ruleset.oc`, '_triangle = if (attacker', 'else', 'keyword.control.conditional.oc'],
    [`${STD}/ruleset.oc`, '_triangle = if (attacker', 'has', 'keyword.operator.has.oc'],
    [`${STD}/ruleset.oc`, 'backfire = attacker has Devil and', 'and', 'keyword.operator.logical.oc'],
    [`${STD}/ruleset.oc`, '_magic = attacker.weapon.magic or', 'or', 'keyword.operator.logical.oc'],
    [`${STD}/ruleset.oc`, 'counter = attacker.can_attack and not', 'not', 'keyword.operator.logical.oc'],
    [`${STD}/tags.oc`, 'when attacker == self and foe has t', 'when', 'keyword.control.conditional.oc'],
    [`${STD}/tags.oc`, 'tag AoE on weapon', 'on', 'keyword.control.trigger.oc'],
    [`${STD}/tags.oc`, 'tag AoE on weapon', 'doc', 'keyword.other.oc'],
    [`${STD}/classes.oc`, 'class Lord "Lord"', 'class', 'keyword.declaration.oc'],
    [`${STD}/classes.oc`, 'wields Swords, Lances', 'wields', 'keyword.other.oc'],
    [`${STD}/items.oc`, 'weapon IronSword', 'weapon', 'keyword.declaration.oc'],
    ['scenarios/ide.oc', 'scenario ThroughTheDunes', 'scenario', 'keyword.declaration.oc'],
    ['scenarios/ide.oc', 'army Refugees', 'army', 'keyword.declaration.oc'],
    ['scenarios/ide.oc', 'win escape 2 through', 'win', 'keyword.other.oc'],
    ['crates/oc-compiler/std/v06.oc', 'import "v06/ruleset.oc"', 'import', 'keyword.control.import.oc'],
    // names after item keywords
    [`${STD}/ruleset.oc`, 'ruleset officers_chess', 'officers_chess', 'entity.name.type.ruleset.oc'],
    [`${STD}/ruleset.oc`, 'scale Rating', 'Rating', 'entity.name.type.scale.oc'],
    [`${STD}/ruleset.oc`, 'stat str: Rating', 'str', 'entity.name.variable.stat.oc'],
    [`${STD}/ruleset.oc`, 'base hp: Int', 'hp', 'entity.name.variable.stat.oc'],
    [`${STD}/ruleset.oc`, 'base hp: Int', 'Int', 'support.type.builtin.oc'],
    [`${STD}/ruleset.oc`, 'dice hit d100', 'hit', 'entity.name.function.dice.oc'],
    [`${STD}/ruleset.oc`, 'table to_hit[Rating, Rating] -> Int', 'to_hit', 'entity.name.function.table.oc'],
    [`${STD}/ruleset.oc`, 'hit = roll(hit)', 'hit', 'entity.name.function.formula.oc'],
    [`${STD}/classes.oc`, 'class Lord "Lord"', 'Lord', 'entity.name.type.class.oc'],
    [`${STD}/items.oc`, 'weapon IronSword', 'IronSword', 'entity.name.type.item.oc'],
    [`${STD}/tags.oc`, 'tag AoE on weapon', 'AoE', 'entity.name.function.tag.oc'],
    [`${STD}/statuses.oc`, 'status Barrier', 'Barrier', 'entity.name.type.status.oc'],
    ['scenarios/ide.oc', 'scenario ThroughTheDunes', 'ThroughTheDunes', 'entity.name.type.scenario.oc'],
    ['scenarios/ide.oc', 'army Refugees', 'Refugees', 'entity.name.type.army.oc'],
    ['scenarios/ide.oc', 'unit Natasha: Cleric', 'Natasha', 'entity.name.variable.unit.oc'],
    ['scenarios/ide.oc', 'unit Natasha: Cleric', 'Cleric', 'entity.name.type.class.oc'],
    // numbers, dice, strings
    [`${STD}/ruleset.oc`, 'base hp: Int = 20', '20', 'constant.numeric.integer.oc'],
    [`${STD}/ruleset.oc`, 'weight -2..2', '..', 'keyword.operator.range.oc'],
    [`${STD}/ruleset.oc`, 'dice hit d100', 'd100', 'constant.numeric.dice.oc'],
    [`${STD}/statuses.oc`, 'clears when roll(d10)', 'd10', 'constant.numeric.dice.oc'],
    [`${STD}/classes.oc`, 'class Lord "Lord"', '"', 'string.quoted.double.oc'],
    [`${STD}/classes.oc`, '"Lord" {', 'Lord', 'string.quoted.double.oc'],
    [`${STD}/tags.oc`, 'tag AoE on weapon doc "Hits', 'Hits all targets in range.', 'string.quoted.double.oc'],
    // ratings and table keys
    [`${STD}/ruleset.oc`, 'scale Rating { F E D', 'F', 'constant.language.rating.oc'],
    [`${STD}/classes.oc`, 'ratings { str C mag E', 'C', 'constant.language.rating.oc'],
    [`${STD}/classes.oc`, 'ratings { str C mag E', 'mag', 'variable.other.property.stat.oc'],
    [`${STD}/ruleset.oc`, 'B: 100   90', 'B', 'constant.language.rating.oc'],
    [`${STD}/ruleset.oc`, 'B: 100   90', '100', 'constant.numeric.integer.oc'],
    // events, verbs, built-in functions, operators
    [`${STD}/tags.oc`, 'on activated { heal(self, x) }', 'activated', 'support.constant.event.oc'],
    [`${STD}/tags.oc`, 'on activated { heal(self, x) }', 'heal', 'support.function.verb.oc'],
    [`${STD}/tags.oc`, 'on activated { heal(self, x) }', 'self', 'variable.language.oc'],
    [`${STD}/tags.oc`, 'on hit { inflict(foe, e) }', 'inflict', 'support.function.verb.oc'],
    [`${STD}/tags.oc`, 'on hit { debuff(foe, m) }', 'debuff', 'support.function.verb.oc'],
    [`${STD}/statuses.oc`, 'at start_of_round', 'start_of_round', 'support.constant.event.oc'],
    [`${STD}/ruleset.oc`, 'hit = roll(hit)', 'roll', 'support.function.builtin.oc'],
    [`${STD}/ruleset.oc`, 'hit = roll(hit) <=', '<=', 'keyword.operator.comparison.oc'],
    [`${STD}/ruleset.oc`, 'else max(0, _table)', 'max', 'support.function.builtin.oc'],
    [`${STD}/tags.oc`, 'tag Slow(x: Int)', 'x', 'variable.parameter.oc'],
    [`${STD}/tags.oc`, 'tag Slow(x: Int)', 'Int', 'support.type.builtin.oc'],
    [`${STD}/tags.oc`, 'reactivate(target)', 'target', 'variable.language.oc'],
    [`${STD}/tags.oc`, 'target ally within 1', 'ally', 'support.constant.target.oc'],
];
for (const [file, context, word, scope] of expectations) expectScope(file, context, word, scope);

// ------------------------------------------------------------------ lines written here
function line(text) {
    return tokenize(text)[0].tokens;
}
// The token of `tokens` (of the line `text`) covering the first `word` of `text`.
function at(tokens, text, word) {
    const col = text.indexOf(word);
    return tokens.find((t) => t.start <= col && col < t.end);
}

// Every keyword of the grammar (`kw_* = @{ "word" ~ !ident_char }`) alone on a line is a keyword.
const pest = readFileSync(join(repo, 'grammar', 'oc.pest'), 'utf8');
const keywords = [...pest.matchAll(/^kw_\w+\s*=\s*@\{\s*"([a-z_]+)"/gm)].map((m) => m[1]);
check(keywords.length >= 90, `only ${keywords.length} keywords read from grammar/oc.pest`);
for (const word of keywords) {
    const tokens = line(word);
    const ok = tokens.length === 1 && tokens[0].text === word &&
        (hasScope(tokens[0], 'keyword') || hasScope(tokens[0], 'constant.language.boolean'));
    check(ok, `keyword \`${word}\` alone: ${tokens.map(show).join(', ')}`);
}

// A keyword used as an attribute or a field is not a keyword.
for (const [text, word] of [['movement += x', 'movement'], ['attacker.weapon.staff', 'staff'], ['x.weight', 'weight']]) {
    const t = at(line(text), text, word);
    check(t && !hasScope(t, 'keyword'), `\`${word}\` in \`${text}\` should not be a keyword: ${show(t)}`);
}

// Dice literals are one token each.
for (const die of ['d100', '2d6', 'd10!', '4d6kh3', '2d20kl1', '3d{0, 0, 1, 2}', 'd{0,0,1,1,2,3}', 'd{-1, 1}']) {
    const t = line(`    dice x ${die} + 2d10 - 1`).find((t) => t.start === 11);
    check(t && t.text === die && hasScope(t, 'constant.numeric.dice.oc'), `dice \`${die}\`: ${show(t)}`);
    const r = line(`ratings { absorption ${die} str C }`);
    const d = r.find((t) => t.text === die);
    const c = r.find((t) => t.text === 'C');
    check(d && hasScope(d, 'constant.numeric.dice.oc') && c && hasScope(c, 'constant.language.rating.oc'),
        `\`absorption ${die}\` in ratings: ${r.map(show).join(', ')}`);
}
{
    const tokens = line('x = d10 != 3 and damage(self, 2d6)');
    const d = tokens.find((t) => t.text === 'd10');
    check(d && hasScope(d, 'constant.numeric.dice.oc'), `\`d10 !=\` is a die then an operator: ${show(d)}`);
    check(!tokens.some((t) => t.text.startsWith('d10!')), '`d10 !=` is not an exploding die');
    const v = tokens.find((t) => t.text === 'damage');
    check(v && hasScope(v, 'support.function.verb.oc'), `verb \`damage(\`: ${show(v)}`);
    const name = at(line('damage = x'), 'damage = x', 'damage');
    check(name && !hasScope(name, 'support.function'), `\`damage =\` is not the verb: ${show(name)}`);
}

// Nested block comments, across lines, and what follows them.
{
    const lines = tokenize('/* outer /* inner */ still\n  more */ class Knight {}\nclass Other {}');
    const still = lines[0].tokens.find((t) => t.text.includes('still'));
    check(still && hasScope(still, 'comment.block.oc'), `nested block comment continues: ${show(still)}`);
    check(lines[0].state.depth > 1, 'a block comment open at the end of a line keeps its state');
    const more = lines[1].tokens.find((t) => t.text.includes('more'));
    check(more && hasScope(more, 'comment.block.oc'), `the comment's second line: ${show(more)}`);
    const knight = at(lines[1].tokens, '  more */ class Knight {}', 'Knight');
    check(knight && knight.scopes.every((s) => !s.startsWith('comment')),
        `after the block comment: ${show(knight)}`);
    const cls = lines[2].tokens.find((t) => t.text === 'Other');
    check(cls && hasScope(cls, 'entity.name.type.class.oc'), `class after a comment: ${show(cls)}`);
}

// Strings: escapes; an unterminated string ends with its line.
{
    const tokens = line('doc "a \\"quoted\\" word"');
    const esc = tokens.find((t) => t.text === '\\"');
    check(esc && hasScope(esc, 'constant.character.escape.oc'), `escape in a string: ${show(esc)}`);
    const lines = tokenize('class A "unterminated\nclass B {}');
    check(lines[0].state.depth === 1, 'an unterminated string does not outlive its line');
    const b = lines[1].tokens.find((t) => t.text === 'B');
    check(b && hasScope(b, 'entity.name.type.class.oc'), `after an unterminated string: ${show(b)}`);
}

// Blocks whose closing brace is missing stay open (they are real blocks), but a closed one on one
// line is fully back at the root.
for (const text of ['scale R { F E D }', 'class C { ratings { str C } wields Swords }',
    'table t[R] -> Int { F: 1 E: 2 }', 'ruleset r { combat { hit = roll(h) <= 50 } }']) {
    const [l] = tokenize(text);
    check(l.state.depth === 1, `\`${text}\` leaves the stack ${l.state.depth} deep`);
}

// Events after `on` and `at`, target kinds after `target`, sides in scenarios.
for (const [text, word, scope] of [
    ['on end_of_turn { shift("normal") }', 'end_of_turn', 'support.constant.event.oc'],
    ['on end_of_turn { shift("normal") }', 'shift', 'support.function.verb.oc'],
    ['heal 10 at start_of_round', 'start_of_round', 'support.constant.event.oc'],
    ['target ally within 1', 'ally', 'support.constant.target.oc'],
    ['rounds 14 then defender', 'defender', 'support.constant.side.oc'],
    ['    attacker {', 'attacker', 'keyword.other.side.oc'],
    ['must_attack_weakest()', 'must_attack_weakest', 'support.function.verb.oc'],
    ['x = clamp(a, 0, 3)', 'clamp', 'support.function.builtin.oc'],
]) {
    const t = line(text).find((t) => t.text === word);
    check(t && hasScope(t, scope), `\`${word}\` in \`${text}\` should be ${scope}: ${show(t)}`);
}

if (failures.length > 0) {
    for (const f of failures) console.log(`FAIL ${f}`);
    console.log(`${failures.length} of ${checks} checks failed`);
    process.exit(1);
}
console.log(`ok: ${files.size} files, ${lineCount} lines, ${tokenCount} tokens; ${checks} checks ` +
    `(${expectations.length} scopes in the shipped files, ${keywords.length} keywords, ` +
    `${commentLines} comment lines, ${rootChecks} lines where the stack must be at the root)`);
