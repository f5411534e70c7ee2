"""A razão de números: todo número que o leitor vê, numa lista só, travada no git.

Depois de um build, `gerar` junta num arquivo (`_build/numeros.json`):

- cada valor colado com `glue` (como o leitor o vê: a string, o LaTeX, ou "(figura)");
- cada saída de texto de uma célula de código visível (stdout, e o resultado da célula,
  em text/html, text/markdown, text/latex ou text/plain, o que a página mostra).

A chave é a página (`book/bloco`) e, dentro dela, o nome do glue (`x5`) ou a célula:
`celula:03.2` é a 2ª saída da 3ª célula de código da página. A cópia travada fica em
`book/numeros.lock.json`; `verificar` falha com uma linha por número que mudou
(página, chave, valor velho → valor novo), e também por chave nova (+) ou sumida (-).

    python book/_ext/razao.py gerar _build       # escreve _build/numeros.json
    python book/_ext/razao.py verificar _build   # compara com book/numeros.lock.json
    python book/_ext/razao.py aceitar _build     # copia _build/numeros.json para o lock

A regra do que NÃO entra na razão (para a trava nunca piscar):

1. a página `book/numeros` (ela mostra a razão; entraria em laço);
2. células com a tag `nao-travar`: nem as saídas delas, nem os glue que elas criam.
   Use-a numa célula que mede tempo, memória ou mostra algo que muda a cada execução;
3. saídas que o leitor não vê: células com `remove-cell` ou `remove-output` (os glue
   dessas células entram, pois aparecem no texto), stderr, imagens, widgets, JavaScript;
4. saídas com cara de volátil, mesmo sem a tag: endereços de memória (`at 0x7f…`),
   tempos (`Wall time`, `CPU times`, `per loop`, `it/s`). `gerar` avisa quais pulou;
   prefira marcar a célula com `nao-travar`.

Um float cru com 17 dígitos numa saída (`0.7392358889419289`) entra com 12 dígitos
significativos: a libm de outra máquina pode mudar o último dígito.

Duas construções limpas dão a mesma razão, byte a byte (chaves em ordem, sem tempos).
"""
from __future__ import annotations

import argparse
import ast
import html as html_mod
import json
import re
import sys
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[2]
LOCK = RAIZ / "book" / "numeros.lock.json"
NOME = "numeros.json"
PAGINA_RAZAO = "book/numeros"
TAG_FORA = "nao-travar"
TAGS_INVISIVEIS = {"remove-cell", "remove-output"}
FIGURA = "(figura)"

# Saídas que mudam a cada execução: nunca são números do livro.
VOLATEIS = [
    re.compile(r"\bat 0x[0-9a-fA-F]{4,}"),          # <objeto at 0x7f…>
    re.compile(r"\b0x[0-9a-fA-F]{8,}\b"),           # endereços soltos
    re.compile(r"Wall time|CPU times|per loop|\bit/s\b|s/it\b"),
]


# ---------------------------------------------------------------------------
# Coleta
# ---------------------------------------------------------------------------
def _texto(v):
    return "".join(v) if isinstance(v, list) else str(v)


def _html_para_texto(h: str) -> str:
    h = re.sub(r"(?is)<(style|script)\b.*?</\1>", "", h)
    h = re.sub(r"(?i)<br\s*/?>|</(p|div|tr|li|h\d)>", "\n", h)
    h = re.sub(r"(?i)</t[dh]>", "\t", h)
    h = re.sub(r"<[^>]+>", "", h)
    h = html_mod.unescape(h)
    linhas = [re.sub(r"[ \t]+", " ", ln).strip() for ln in h.splitlines()]
    return "\n".join(ln for ln in linhas if ln)


def _latex(s: str) -> str:
    s = s.strip()
    if s.startswith("$$") and s.endswith("$$"):
        s = s[2:-2]
    elif s.startswith("$") and s.endswith("$"):
        s = s[1:-1]
    s = s.strip()
    if s.startswith(r"\displaystyle"):
        s = s[len(r"\displaystyle"):]
    return s.strip()


def _limpa(s: str) -> str:
    return "\n".join(ln.rstrip() for ln in s.strip("\n").splitlines())


_FLOAT_LONGO = re.compile(r"(?<![\w.])-?\d+\.\d{10,}(?:e[-+]?\d+)?(?![\w.])")


def _floats_curtos(s: str) -> str:
    """repr de float com 17 dígitos -> 12 significativos (a libm de outra máquina
    pode mudar o último dígito; 12 dígitos não piscam)."""
    return _FLOAT_LONGO.sub(lambda m: repr(float(format(float(m.group()), ".12g"))), s)


def valor_glue(data: dict) -> str:
    """O valor colado como o leitor o vê (string já formatada, LaTeX ou figura)."""
    if "text/latex" in data:
        return _latex(_texto(data["text/latex"]))
    if "text/markdown" in data:
        return _limpa(_texto(data["text/markdown"]))
    if "text/html" in data:
        return _html_para_texto(_texto(data["text/html"]))
    if any(k.startswith("image/") for k in data):
        return FIGURA
    if "text/plain" in data:
        t = _texto(data["text/plain"])
        try:
            v = ast.literal_eval(t)
        except (SyntaxError, ValueError):
            v = t
        return _limpa(str(v))
    return ""


def valor_saida(out: dict) -> str | None:
    """O texto que uma saída de célula mostra, ou None se não é texto para o leitor."""
    tipo = out.get("output_type")
    if tipo == "stream":
        return _limpa(_texto(out.get("text", ""))) if out.get("name") == "stdout" else None
    if tipo not in ("execute_result", "display_data"):
        return None
    data = out.get("data", {})
    if any(k.startswith(("image/", "application/vnd.jupyter.widget", "application/javascript"))
           for k in data):
        return None
    if "text/html" in data:
        return _html_para_texto(_texto(data["text/html"]))
    if "text/markdown" in data:
        return _limpa(_texto(data["text/markdown"]))
    if "text/latex" in data:
        return _latex(_texto(data["text/latex"]))
    if "text/plain" in data:
        return _limpa(_texto(data["text/plain"]))
    return None


def chaves_glue_no_codigo(codigo: str) -> list[str]:
    """Os nomes dados a glue(...) num trecho de código (f-strings viram padrões regex)."""
    return [p for p, _ in chamadas_glue(codigo)]


def chamadas_glue(codigo: str):
    """[(padrão regex da chave, número da linha no trecho, 1-based), ...] de cada glue(...)."""
    achadas = []
    try:
        arvore = ast.parse(_sem_magicas(codigo))
    except SyntaxError:
        for m in re.finditer(r"""(?:cola|glue)\(\s*(['"])(.+?)\1""", codigo):
            linha = codigo[:m.start()].count("\n") + 1
            achadas.append((re.escape(m.group(2)), linha))
        return achadas
    for no in ast.walk(arvore):
        if not (isinstance(no, ast.Call) and no.args):
            continue
        f = no.func
        nome = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else None)
        if nome not in ("cola", "glue"):
            continue
        a = no.args[0]
        if isinstance(a, ast.Constant) and isinstance(a.value, str):
            achadas.append((re.escape(a.value), no.lineno))
        elif isinstance(a, ast.JoinedStr):
            partes = []
            for v in a.values:
                if isinstance(v, ast.Constant):
                    partes.append(re.escape(str(v.value)))
                else:
                    partes.append(".+?")
            achadas.append(("".join(partes), no.lineno))
    return achadas


def _sem_magicas(codigo: str) -> str:
    """O código como Python puro: se não compila, as linhas de mágica do IPython (%, !)
    viram comentário (uma linha "% (a, b)" que continua uma expressão fica como está)."""
    try:
        ast.parse(codigo)
        return codigo
    except SyntaxError:
        return "\n".join(("#" + ln) if ln.lstrip().startswith(("%", "!")) else ln
                         for ln in codigo.splitlines())


def _tags(cell) -> set:
    return set(cell.get("metadata", {}).get("tags", []) or [])


def coletar_pagina(ipynb: Path, glue_json: Path | None) -> tuple[dict, list]:
    """-> ({chave: valor}, [avisos]) de uma página executada."""
    nb = json.loads(ipynb.read_text(encoding="utf-8"))
    glue = json.loads(glue_json.read_text(encoding="utf-8")) if glue_json and glue_json.exists() else {}
    itens, avisos, fora = {}, [], []
    n_codigo = 0
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        n_codigo += 1
        tags = _tags(cell)
        if TAG_FORA in tags:
            fora += chaves_glue_no_codigo(_texto(cell.get("source", "")))
            continue
        if tags & TAGS_INVISIVEIS:
            continue
        for j, out in enumerate(cell.get("outputs", []), 1):
            v = valor_saida(out)
            if v is None or v == "":
                continue
            chave = f"celula:{n_codigo:02d}.{j}"
            if any(p.search(v) for p in VOLATEIS):
                avisos.append(f"{chave}: saída volátil pulada (marque a célula com `{TAG_FORA}`)")
                continue
            itens[chave] = _floats_curtos(v)
    for chave, out in glue.items():
        if any(re.fullmatch(p, chave) for p in fora):
            continue
        itens[chave] = valor_glue(out.get("data", {}))
    return itens, avisos


def coletar(build: Path, verboso=False) -> dict:
    """Todas as páginas executadas de um build -> razão {página: {chave: valor}}."""
    base = Path(build) / "jupyter_execute"
    if not base.is_dir():
        sys.exit(f"Não achei {base}: rode `make book` antes.")
    razao = {}
    for ipynb in sorted(base.rglob("*.ipynb")):
        pagina = ipynb.relative_to(base).with_suffix("").as_posix()
        if pagina == PAGINA_RAZAO or ".ipynb_checkpoints" in ipynb.parts:
            continue
        itens, avisos = coletar_pagina(ipynb, ipynb.with_name(ipynb.stem + ".glue.json"))
        if verboso:
            for a in avisos:
                print(f"  aviso: {pagina} {a}")
        if itens:
            razao[pagina] = dict(sorted(itens.items()))
    return dict(sorted(razao.items()))


def serializa(razao: dict) -> str:
    return json.dumps(razao, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


# ---------------------------------------------------------------------------
# Comparação
# ---------------------------------------------------------------------------
def _curto(s: str, n=140) -> str:
    s = s.replace("\n", " ⏎ ")
    return s if len(s) <= n else s[: n - 1] + "…"


def diferencas(velha: dict, nova: dict, paginas: set | None = None) -> list[str]:
    """Uma linha por número que mudou, entrou (+) ou saiu (-)."""
    linhas = []
    todas = sorted(set(velha) | set(nova))
    if paginas is not None:
        todas = [p for p in todas if p in paginas]
    for pag in todas:
        a, b = velha.get(pag, {}), nova.get(pag, {})
        for chave in sorted(set(a) | set(b)):
            if chave not in b:
                linhas.append(f"- {pag} · {chave}: {_curto(a[chave])} (sumiu)")
            elif chave not in a:
                linhas.append(f"+ {pag} · {chave}: {_curto(b[chave])} (novo)")
            elif a[chave] != b[chave]:
                la, lb = a[chave].splitlines(), b[chave].splitlines()
                if len(la) == len(lb) > 1:
                    for i, (x, y) in enumerate(zip(la, lb), 1):
                        if x != y:
                            linhas.append(f"~ {pag} · {chave} linha {i}: {_curto(x)} → {_curto(y)}")
                else:
                    linhas.append(f"~ {pag} · {chave}: {_curto(a[chave])} → {_curto(b[chave])}")
    return linhas


def ler_lock(lock: Path = LOCK) -> dict:
    if not lock.exists():
        return {}
    return json.loads(lock.read_text(encoding="utf-8"))


def verificar(build: Path, lock: Path = LOCK, parcial=False) -> list[str]:
    """Gera a razão do build e devolve as linhas de diferença (vazia = tudo igual).

    parcial: compara só as páginas que este build executou (um build de poucas páginas).
    """
    nova = coletar(build)
    (Path(build) / NOME).write_text(serializa(nova), encoding="utf-8")
    paginas = None
    if parcial:
        base = Path(build) / "jupyter_execute"
        paginas = {p.relative_to(base).with_suffix("").as_posix() for p in base.rglob("*.ipynb")}
    return diferencas(ler_lock(lock), nova, paginas)


# ---------------------------------------------------------------------------
# A página para instrutores: a diretiva {razao}
# ---------------------------------------------------------------------------
def codigo_das_chaves(md: Path) -> dict:
    """Lê o fonte de uma página MyST -> {chave: (linha no .md, código)} para glue e células."""
    from myst_nb.core.read import read_myst_markdown_notebook

    texto = md.read_text(encoding="utf-8")
    nb = read_myst_markdown_notebook(texto, add_source_map=True)
    linhas_md = texto.splitlines()
    mapa = nb.metadata.get("source_map", [])
    res, padroes = {}, []
    n = 0
    for idx, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        n += 1
        fence = mapa[idx] if idx < len(mapa) else 0          # linha do ```{code-cell} (1-based)
        corpo = cell.source.splitlines()
        # onde o corpo começa no .md (depois das opções :tags: ...)
        ini = fence
        if corpo:
            for k in range(fence, min(fence + 40, len(linhas_md))):
                if linhas_md[k] == corpo[0]:
                    ini = k
                    break
        res[f"celula:{n:02d}"] = (ini + 1, cell.source)
        try:
            arvore = ast.parse(_sem_magicas(cell.source))
        except SyntaxError:
            arvore = None
        for padrao, lin in chamadas_glue(cell.source):
            trecho = corpo[lin - 1] if lin - 1 < len(corpo) else ""
            if arvore is not None:
                for no in ast.walk(arvore):
                    if isinstance(no, ast.stmt) and getattr(no, "lineno", None) == lin:
                        trecho = "\n".join(corpo[no.lineno - 1: no.end_lineno])
                        break
            padroes.append((padrao, ini + lin, trecho))
    res["__glue__"] = padroes
    return res


def onde_calcula(fontes: dict, chave: str):
    """(linha, código) que calcula uma chave da razão, ou (None, "")."""
    if chave.startswith("celula:"):
        return fontes.get(chave.split(".")[0], (None, ""))
    exatas = [(l, c) for p, l, c in fontes.get("__glue__", []) if p == re.escape(chave)]
    if exatas:
        return exatas[0]
    for p, l, c in fontes.get("__glue__", []):
        if re.fullmatch(p, chave):
            return l, c
    return None, ""


def _dobra(texto: str, classe: str, linhas=4) -> str:
    """Um <pre>; se o texto é longo, recolhido num <details> com a 1ª linha à vista."""
    e = html_mod.escape
    pre = f'<pre class="{classe}">{e(texto)}</pre>'
    if texto.count("\n") >= linhas:
        primeira = texto.splitlines()[0]
        return f"<details><summary><code>{e(primeira[:60])}</code> …</summary>{pre}</details>"
    return pre


def tabela_html(razao: dict, raiz: Path, link) -> str:
    """A tabela da página para instrutores (HTML cru, com uma caixa de filtro)."""
    e = html_mod.escape
    linhas, total = [], 0
    for pag, itens in razao.items():
        md = raiz / (pag + ".md")
        try:
            fontes = codigo_das_chaves(md) if md.exists() else {}
        except Exception:  # uma página quebrada não derruba esta
            fontes = {}
        for chave, valor in itens.items():
            total += 1
            lin, cod = onde_calcula(fontes, chave)
            ref = f"{pag}.md:{lin}" if lin else f"{pag}.md"
            tipo = "célula" if chave.startswith("celula:") else "glue"
            linhas.append(
                "<tr>"
                f'<td><a href="{e(link(pag))}">{e(pag.split("/")[-1])}</a><br>'
                f'<code>{e(chave)}</code> <small>({tipo})</small></td>'
                f"<td>{_dobra(valor, 'razao-valor')}</td>"
                f'<td><small><code>{e(ref)}</code></small>{_dobra(cod, "razao-codigo", 3) if cod else ""}</td>'
                "</tr>"
            )
    cab = "<tr><th>onde aparece</th><th>valor (travado)</th><th>código que o calcula</th></tr>"
    return f"""
<div class="razao full-width">
<p><label for="razao-filtro">Filtrar:</label>
<input type="search" id="razao-filtro" placeholder="página, chave, valor ou código" autocomplete="off">
<span id="razao-conta">{total} números</span></p>
<div class="razao-rolagem"><table class="table razao-tabela" id="razao-tabela">
<thead>{cab}</thead>
<tbody>
{chr(10).join(linhas)}
</tbody></table></div>
</div>
<style>
.razao-rolagem {{ overflow-x: auto; }}
.razao-tabela {{ min-width: 44em; }}
.razao-tabela td {{ vertical-align: top; font-size: 0.85em; }}
.razao-tabela td:first-child {{ white-space: nowrap; }}
.razao-tabela pre {{ margin: 0.25em 0 0; padding: 0.3em 0.5em; font-size: 0.95em;
  white-space: pre-wrap; word-break: break-word; max-width: 38em; }}
.razao-tabela details summary {{ cursor: pointer; }}
#razao-filtro {{ width: min(24em, 100%); }}
</style>
<script>
(function () {{
  var caixa = document.getElementById("razao-filtro");
  var linhas = document.querySelectorAll("#razao-tabela tbody tr");
  var conta = document.getElementById("razao-conta");
  caixa.addEventListener("input", function () {{
    var q = caixa.value.toLowerCase().trim(), n = 0;
    linhas.forEach(function (tr) {{
      var ok = !q || tr.textContent.toLowerCase().indexOf(q) >= 0;
      tr.style.display = ok ? "" : "none";
      if (ok) n++;
    }});
    conta.textContent = n + (n === 1 ? " número" : " números");
  }});
}})();
</script>
"""


def setup(app):
    from docutils import nodes
    from sphinx.util.docutils import SphinxDirective

    class RazaoDirective(SphinxDirective):
        """```{razao}``` : a tabela de todos os números do livro (do lock + fontes)."""
        has_content = False

        def run(self):
            env = self.env
            raiz = Path(env.srcdir)
            lock = raiz / LOCK.relative_to(RAIZ)
            env.note_dependency(str(lock))
            razao = ler_lock(lock)
            razao.pop(PAGINA_RAZAO, None)
            for pag in razao:
                md = raiz / (pag + ".md")
                if md.exists():
                    env.note_dependency(str(md))
            aqui = env.docname

            def link(pag):
                try:
                    return env.app.builder.get_relative_uri(aqui, pag)
                except Exception:
                    return "#"

            return [nodes.raw("", tabela_html(razao, raiz, link), format="html")]

    app.add_directive("razao", RazaoDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# ---------------------------------------------------------------------------
# Linha de comando (o Makefile chama)
# ---------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description="A razão de números do livro.")
    ap.add_argument("acao", choices=["gerar", "verificar", "aceitar"])
    ap.add_argument("build", nargs="?", default="_build", help="a pasta _build do Jupyter Book")
    ap.add_argument("--lock", default=str(LOCK), help="o lock (padrão: book/numeros.lock.json)")
    ap.add_argument("--parcial", action="store_true",
                    help="verificar: só as páginas que este build executou")
    a = ap.parse_args(argv)
    build, lock = Path(a.build), Path(a.lock)
    if a.acao == "gerar":
        razao = coletar(build, verboso=True)
        (build / NOME).write_text(serializa(razao), encoding="utf-8")
        n = sum(len(v) for v in razao.values())
        print(f"Razão: {n} números de {len(razao)} páginas em {build / NOME}")
        return 0
    if a.acao == "aceitar":
        fonte = build / NOME
        if not fonte.exists():
            sys.exit(f"Falta {fonte}: rode `razao.py gerar {build}` antes.")
        velho = ler_lock(lock)
        novo = json.loads(fonte.read_text(encoding="utf-8"))
        mudou = diferencas(velho, novo)
        lock.write_text(serializa(novo), encoding="utf-8")
        print(f"{lock} atualizado ({len(mudou)} mudanças):")
        for ln in mudou:
            print("  " + ln)
        return 0
    linhas = verificar(build, lock, a.parcial)
    if not linhas:
        print(f"Razão confere com {lock.name}.")
        return 0
    print(f"{len(linhas)} números mudaram em relação a {lock}:")
    for ln in linhas:
        print("  " + ln)
    print("Se a mudança é de propósito: `make lock` e revise o diff do lock no commit.")
    return 1


if __name__ == "__main__":
    sys.exit(main())
