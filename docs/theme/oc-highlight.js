// The `oc` language for highlight.js, so the guide's ```oc blocks are highlighted by mdBook
// (`additional-js` in book.toml). mdBook's book.js highlights every block before this script
// runs, when `oc` is still unknown; so this registers the language, then highlights the `oc`
// blocks again. It works with highlight.js 10 (`highlightBlock`) and 11 (`highlightElement`).
//
// The keywords are every `kw_*` word of grammar/oc.pest; tests/docs_highlight.rs checks that
// against the grammar and highlights every ```oc block of docs/ with the real highlight.js.
(function () {
  'use strict';

  var KEYWORDS = [
    'import', 'ruleset', 'scale', 'stat', 'base', 'class_range', 'inventory', 'weight', 'dice',
    'table', 'combat', 'movement', 'terrain', 'weapon_type', 'triangle', 'tag', 'tags', 'status',
    'class', 'weapon', 'accessory', 'consumable', 'stacks', 'on', 'when', 'grant', 'action',
    'target', 'within', 'requires', 'ratings', 'wields', 'cost', 'promoted', 'from', 'normal',
    'transformed', 'type', 'might', 'range', 'use', 'symbol', 'defense', 'heal', 'at', 'hp',
    'becomes', 'opened_by', 'impassable', 'blocks_sight', 'line_of_sight',
    'courage', 'check', 'losses', 'routs', 'fear', 'rally', 'pursuit', 'surrender', 'advanced',
    'leadership', 'general', 'beyond', 'save', 'situations', 'ground', 'flank', 'rear', 'blind', 'flying', 'mixed', 'weather', 'elevation', 'charging', 'formations', 'sequence', 'area', 'clears', 'lasts', 'and', 'or', 'not', 'has',
    'physical', 'magic', 'staff', 'doc', 'if', 'then', 'else', 'kit', 'scenario', 'army', 'map',
    'regions', 'rounds', 'deploy', 'first', 'edges', 'zone', 'war_chest', 'units', 'with', 'wielding',
    'ranged', 'to', 'allow', 'ban', 'win', 'for', 'unit', 'items', 'figures', 'joins', 'seize', 'rout', 'all',
    'leader', 'escape', 'through', 'defend', 'survive', 'raze', 'in', 'chest', 'fog', 'vision',
    'points', 'resource', 'turn', 'order', 'spend', 'ties', 'threat', 'reaction', 'reactions', 'each', 'basic',
    'rolloff', 'by', 'at_least', 'at_most', 'classes', 'alternate', 'adjacent', 'front',
    'riposte', 'reroll', 'charge', 'gain', 'attacker', 'defender', 'draw', 'round', 'activation', 'activations'
  ];
  // Effect verbs and events (oc_model::conformance), and what formulas read.
  var BUILT_INS = [
    'damage', 'inflict', 'cure', 'clear', 'reactivate', 'relocate', 'open', 'take_chest', 'reveal',
    'transform', 'restrict', 'must_attack_weakest', 'shift', 'debuff', 'ignore_item_tags',
    'attack', 'injure', 'flee', 'gain', 'break_weapon', 'strike_friend', 'disengage', 'hide', 'search', 'divide', 'join', 'activated', 'end_of_turn', 'start_of_round', 'end_of_round', 'hit', 'crit',
    'attacked', 'after_attack', 'routed', 'miss', 'chart', 'roll', 'min', 'max', 'abs', 'clamp', 'self',
    'user', 'foe', 'ally', 'enemy', 'enemies', 'self_or_ally', 'tile', 'door'
  ];
  // The keywords whose next word is the name they define (shown as a title).
  var DEFINES = [
    'ruleset', 'scale', 'stat', 'base', 'dice', 'table', 'movement', 'terrain', 'weapon_type',
    'tag', 'status', 'class', 'weapon', 'accessory', 'consumable', 'scenario', 'army', 'unit',
    'resource', 'reaction'
  ];

  function oc(hljs) {
    var nested = hljs.COMMENT(/\/\*/, /\*\//, { contains: ['self'] });
    return {
      name: 'oc',
      aliases: ['officers-chess'],
      keywords: {
        keyword: KEYWORDS.join(' '),
        literal: 'true false',
        built_in: BUILT_INS.join(' ')
      },
      contains: [
        hljs.C_LINE_COMMENT_MODE,
        nested,
        { className: 'string', begin: /"/, end: /"/, illegal: /\n/, contains: [hljs.BACKSLASH_ESCAPE] },
        {
          className: 'title',
          begin: new RegExp('(?<=\\b(?:' + DEFINES.join('|') + ')\\s+)[A-Za-z_][A-Za-z0-9_]*'),
          relevance: 0
        },
        // Dice (`d100`, `2d6`, `d10!`, `4d6kh3`, `2d8c`, `3d{0, 0, 1, 2}`), then numbers.
        { className: 'number', begin: /\b\d*d(?:\d+|\{[^}\n]*\})!?c?(?:k[hl]\d+)?(?![A-Za-z0-9_])/ },
        { className: 'number', begin: /\b\d+\b/, relevance: 0 }
      ]
    };
  }

  if (typeof module !== 'undefined' && module.exports) {
    module.exports = { oc: oc, KEYWORDS: KEYWORDS };
  }
  var hljs = typeof window !== 'undefined' ? window.hljs : undefined;
  if (!hljs) {
    return;
  }
  hljs.registerLanguage('oc', oc);
  var blocks = document.querySelectorAll('code.language-oc');
  for (var i = 0; i < blocks.length; i++) {
    var block = blocks[i];
    // highlight.js 11 leaves a mark on a block it has been given; this block was not highlighted.
    delete block.dataset.highlighted;
    if (hljs.highlightElement) {
      hljs.highlightElement(block);
    } else {
      hljs.highlightBlock(block);
    }
    block.classList.add('hljs');
  }
})();
