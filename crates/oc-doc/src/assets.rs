//! The site's style sheet, its search script and the search index (a script too, so that the
//! site works from `file://`, where pages may not fetch files).

use crate::page::{file_of, Pages};
use crate::Entry;

pub const STYLE: &str = r#"body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #fdfdfc; }
header { position: sticky; top: 0; background: #23344a; color: #fff; padding: .5em 1em; z-index: 2; }
header nav a { color: #fff; margin-right: .9em; text-decoration: none; }
header nav a.here { text-decoration: underline; font-weight: bold; }
#oc-search { margin-top: .4em; width: min(34em, 100%); padding: .3em .5em; font-size: 1em; border-radius: 4px; border: 0; }
#oc-results { background: #fff; color: #1d1d1f; margin: .3em 0 0; padding: .4em 1.6em; max-height: 60vh; overflow: auto;
  border-radius: 4px; box-shadow: 0 4px 12px rgba(0,0,0,.3); }
#oc-results .kind { color: #6b6b6b; font-size: .85em; }
#oc-results .summary { color: #444; font-size: .9em; }
main { max-width: 72em; margin: 0 auto; padding: 1em 1.5em 4em; }
h2 { border-top: 1px solid #ddd; padding-top: .8em; margin-top: 1.6em; }
h2 .anchor, h3 .anchor { visibility: hidden; text-decoration: none; color: #999; }
h2:hover .anchor, h3:hover .anchor { visibility: visible; }
:target { background: #fff7d6; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { border: 1px solid #ccc; padding: .15em .55em; text-align: left; vertical-align: top; }
th { background: #eef1f5; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .92em; }
pre { background: #f4f4f2; padding: .6em .8em; overflow: auto; border-radius: 4px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1em 1em; }
dl.facts dt { font-weight: bold; }
dl.facts dd { margin: 0; }
pre.source span { display: block; }
pre.source a.ln { color: #999; text-decoration: none; user-select: none; }
img { max-width: 100%; image-rendering: pixelated; border: 1px solid #ccc; }
a { color: #1f5fa8; }
"#;

pub const SEARCH: &str = r#"// Search over window.OC_SEARCH (search-index.js): [name, kind, link from the site's root, summary].
// `?q=WORD` in the address runs a search when the page opens.
(function () {
  var input = document.getElementById('oc-search');
  var out = document.getElementById('oc-results');
  var root = document.body.getAttribute('data-root') || '';
  var index = window.OC_SEARCH || [];
  if (!input || !out) return;
  function rank(entry, q) {
    var name = entry[0].toLowerCase();
    if (name === q) return 0;
    if (name.indexOf(q) === 0) return 1;
    if (name.indexOf(q) >= 0) return 2;
    if ((entry[1] + ' ' + entry[3]).toLowerCase().indexOf(q) >= 0) return 3;
    return -1;
  }
  function item(text, cls) {
    var span = document.createElement('span');
    span.className = cls;
    span.textContent = text;
    return span;
  }
  function run() {
    var q = input.value.trim().toLowerCase();
    out.innerHTML = '';
    if (!q) { out.hidden = true; return; }
    var hits = [];
    for (var i = 0; i < index.length; i++) {
      var r = rank(index[i], q);
      if (r >= 0) hits.push([r, i]);
    }
    hits.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    hits.slice(0, 30).forEach(function (h) {
      var e = index[h[1]];
      var li = document.createElement('li');
      var a = document.createElement('a');
      a.href = root + e[2];
      a.textContent = e[0];
      li.appendChild(a);
      li.appendChild(item(' ' + e[1] + ' ', 'kind'));
      li.appendChild(item(e[3], 'summary'));
      out.appendChild(li);
    });
    if (!hits.length) {
      var none = document.createElement('li');
      none.textContent = 'nothing matches "' + input.value.trim() + '"';
      out.appendChild(none);
    }
    out.hidden = false;
  }
  input.addEventListener('input', run);
  input.addEventListener('keydown', function (ev) {
    if (ev.key === 'Enter') { var a = out.querySelector('a'); if (a) window.location.href = a.href; }
    if (ev.key === 'Escape') { input.value = ''; run(); }
  });
  var m = /[?&]q=([^&]*)/.exec(window.location.search);
  if (m) { input.value = decodeURIComponent(m[1].replace(/\+/g, ' ')); run(); }
})();
"#;

/// `search-index.js`: the entries as a JavaScript array (JSON, so every string is escaped).
pub fn index(entries: &[Entry], pages: &dyn Pages) -> String {
    let rows: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| {
            let mut link = file_of(&e.href.page, pages.html_only(&e.href.page), "html");
            if let Some(a) = &e.href.anchor {
                link.push('#');
                link.push_str(a);
            }
            serde_json::json!([e.name, e.kind, link, e.summary])
        })
        .collect();
    let json = serde_json::Value::Array(rows).to_string();
    // `</script>` cannot appear in JSON strings that end up in a script file, but keep `<` out anyway.
    format!("window.OC_SEARCH = {};\n", json.replace('<', "\\u003c"))
}
