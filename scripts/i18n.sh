#!/usr/bin/env bash
# The message catalogs (docs/i18n.md), with gettext's own tools:
#   scripts/i18n.sh update      re-extract po/tfrig.pot from src/ and data/knowledge/ and merge it into po/*.po
#   scripts/i18n.sh check-pot   fail when po/tfrig.pot is not what the sources and the knowledge texts give (ctest)
#   scripts/i18n.sh check-po    fail when a catalog misses a translation, has a fuzzy one,
#                               uses other fields than the English, or does not compile
#                               (msgfmt --check; ctest)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# Debian's python3 first: a pyenv shim first on PATH costs ~1.5 s a start.
python=/usr/bin/python3
[ -x "$python" ] || python=python3

# The markers of src/core/i18n.h, and the texts of data/knowledge/*.json that
# users read (scripts/knowledge_pot.py). --keyword= drops xgettext's defaults (gettext, dgettext ...);
# no-c-format: our fields are fmt's {} and {0}, a '%' in English text is just a percent.
extract() {
  local out="$1"
  find src -name '*.cpp' -o -name '*.h' | LC_ALL=C sort > "$out.files"
  xgettext --language=C++ --from-code=UTF-8 --add-comments=TRANSLATORS: \
    --keyword= --keyword=_:1 --keyword=trf:1 --keyword=trnf:1,2 --keyword=N_:1 --keyword=NP_:1,2 --keyword=NC_:1c,2 --keyword=C_:1c,2 \
    --flag=_:1:no-c-format --flag=trf:1:no-c-format --flag=trnf:1:no-c-format --flag=trnf:2:no-c-format \
    --flag=N_:1:no-c-format --flag=NP_:1:no-c-format --flag=NP_:2:no-c-format --flag=NC_:2:no-c-format --flag=C_:2:no-c-format \
    --sort-output --add-location=file --package-name=tfrig \
    --files-from="$out.files" -o "$out.code"
  rm -f "$out.files"
  # xgettext leaves the charset as a placeholder when every msgid is ASCII.
  sed -i 's/charset=CHARSET/charset=UTF-8/' "$out.code"
  # Messages marked @{...}@ in setup's templates (src/setup/templates.h).
  "$python" "$root/scripts/extract_template_messages.py" "$out.templates" src/setup/templates/*.in
  # The human texts of data/knowledge/*.json (a log line's meaning, cause and
  # fix): xgettext reads no JSON, so a script writes them as a fragment.
  "$python" "$root/scripts/knowledge_pot.py" "$out.knowledge"
  msgcat --use-first --sort-output --add-location=file -o "$out" "$out.code" "$out.templates" "$out.knowledge"
  rm -f "$out.code" "$out.templates" "$out.knowledge"
}

case "${1:-}" in
  update)
    extract po/tfrig.pot
    for po in po/*.po; do
      msgmerge --quiet --update --backup=none --no-fuzzy-matching --sort-output --add-location=file "$po" po/tfrig.pot
      # Messages the sources no longer have are dropped, not kept as #~ history.
      msgattrib --no-obsolete --sort-output --add-location=file -o "$po" "$po"
    done
    ;;
  check-pot)
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    extract "$tmp/tfrig.pot"
    if ! diff -u <(grep -v '^"POT-Creation-Date:' po/tfrig.pot) <(grep -v '^"POT-Creation-Date:' "$tmp/tfrig.pot"); then
      echo "po/tfrig.pot is out of date with src/ or data/knowledge/: run scripts/i18n.sh update, then translate the new messages in po/*.po" >&2
      exit 1
    fi
    ;;
  check-po)
    status=0
    for po in po/*.po; do
      stats="$(msgfmt --check --statistics -o /dev/null "$po" 2>&1)" || { echo "$po: msgfmt --check failed:" >&2; echo "$stats" >&2; status=1; continue; }
      echo "$po: $stats"
      if grep -Eq 'fuzzy|untranslated' <<<"$stats"; then
        echo "$po: every message needs a reviewed translation (no fuzzy, none untranslated):" >&2
        msgattrib --only-fuzzy "$po" >&2 || true
        msgattrib --untranslated "$po" >&2 || true
        status=1
      fi
      # Every translation uses the fields of its English message ({} / {N}).
      "$python" "$root/scripts/check_po_fields.py" "$po" || status=1
      # Every message of the template must be in the catalog, translated.
      if ! msgcmp "$po" po/tfrig.pot 2>&1; then
        echo "$po: lacks messages of po/tfrig.pot: run scripts/i18n.sh update and translate them" >&2
        status=1
      fi
    done
    exit "$status"
    ;;
  *)
    echo "usage: scripts/i18n.sh update|check-pot|check-po" >&2
    exit 64
    ;;
esac
