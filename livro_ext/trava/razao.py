"""A razão de números: todo número que o leitor vê, numa lista só, travada no git.

Depois de um build, `gerar` junta num arquivo (`_build/numeros.json`):

- cada valor colado com `cola` (ou `glue`), como o leitor o vê: a string, o LaTeX, a tabela
  em Markdown, "(figura)" para uma figura; um diagrama (HTML/SVG de lab/livro/diagramas.py) entra
  como o seu texto visível: a descrição (aria-label), o título e cada rótulo numa linha, então
  uma forma que muda ("5 × 4" → "5 × 8") aparece;
- cada saída de texto de uma célula de código visível (stdout, e o resultado da célula,
  em text/html, text/markdown, text/latex ou text/plain, o que a página mostra);
- o estado inicial de cada widget (o que a diretiva ```{widget}``` põe na página antes de o
  Python do navegador carregar), lido do HTML construído: o texto visível de cada elemento
  com a classe `livro-widget`, uma linha por bloco, " | " entre células de tabela, campos
  como [valor], marcas como [x] / [ ], a opção escolhida de uma lista. Só a classe do
  contêiner e o texto contam: mudar outras classes, cores ou estilos não mexe na razão.

A chave é a página (`book/bloco`) e, dentro dela, o nome do glue (`x5`), a célula
(`celula:03.2` é a 2ª saída da 3ª célula de código da página) ou o widget (`widget:saida`;
o segundo widget igual na mesma página é `widget:saida-2`). A cópia travada fica em
`book/numeros.lock.json`; `verificar` falha com uma linha por número que mudou
(página, chave, valor velho → valor novo; num valor de várias linhas, a linha que mudou),
e também por chave nova (+) ou sumida (-).

    python -m livro_ext.trava.razao gerar _build       # escreve _build/numeros.json
    python -m livro_ext.trava.razao verificar _build   # compara com book/numeros.lock.json

Valores que nunca entram: um valor colado com caractere de controle (um TAB, um \\f, um
\\b: quase sempre LaTeX numa string sem r"...", em que "\\times" vira TAB + "imes") ou
com um "\\n" que comeu um comando LaTeX ("\\neq"). `gerar` e `verificar` falham dizendo
página e chave (linhas "!"), e o `make lock` (rapido.py --aceitar) se recusa a gravá-los.

A regra do que NÃO entra na razão (para a trava nunca piscar):

1. a página `book/numeros` (ela mostra a razão; entraria em laço);
2. células com a tag `nao-travar`: nem as saídas delas, nem os glue que elas criam
   (também os colados por uma função da página chamada nessa célula).
   Use-a numa célula que mede tempo, memória ou mostra algo que muda a cada execução;
3. saídas que o leitor não vê: células com `remove-cell` ou `remove-output` (os glue
   dessas células entram, pois aparecem no texto), stderr, imagens, widgets Jupyter, JavaScript;
   num widget do livro, o que está escondido (`hidden`, `display: none`, <script>, <style>);
4. saídas com cara de volátil, mesmo sem a tag: endereços de memória (`at 0x7f…`),
   tempos (`Wall time`, `CPU times`, `per loop`, `it/s`). `gerar` avisa quais pulou;
   prefira marcar a célula com `nao-travar`.

Resíduos de arredondamento nunca entram: um número em notação científica abaixo de 10⁻¹²
("5,0 · 10⁻¹⁶", "10^{-16}", "2.2e-16") é quase sempre um erro de arredondamento, cujo valor
depende da CPU, do caminho do BLAS e do número de threads. `gerar` falha dizendo página, chave
e valor (linhas "!"). Imprima um limite ("menos de 10⁻¹²"). Uma constante do setup (um ε, uma
tolerância) pode ser minúscula: cole-a numa célula com a tag `constante`.

Um float cru com 17 dígitos numa saída (`0.7392358889419289`) entra com 12 dígitos
significativos: a libm de outra máquina pode mudar o último dígito.

Duas construções limpas dão a mesma razão, byte a byte (chaves em ordem, sem tempos).

O fluxo anda num sentido só: coletar (aqui: os arquivos do build, ou os resultados da trava
rápida, livro_ext/trava/rapido.py) → normalizar (razao_texto.py: cada saída, glue e widget vira o
texto da razão, com a regra acima; razao_codigo.py lê o código das células) → comparar
(aqui: com o lock). razao_texto.py não chama nada daqui.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .razao_texto import CLASSE_WIDGET, curto, itens_do_notebook, itens_dos_widgets

RAIZ = Path(__file__).resolve().parents[2]
LOCK = RAIZ / "book" / "numeros.lock.json"
NOME = "numeros.json"
PAGINA_RAZAO = "book/numeros"


# ---------------------------------------------------------------------------
# Coleta: do build ou da trava rápida (o texto de cada valor sai de razao_texto.py)
# ---------------------------------------------------------------------------
def _paginas_html(html: Path) -> dict:
    """{página: arquivo} das páginas HTML do livro que têm widget."""
    res = {}
    if not html.is_dir():
        return res
    for arq in sorted(html.rglob("*.html")):
        rel = arq.relative_to(html)
        if rel.parts[0].startswith("_"):
            continue
        if CLASSE_WIDGET in arq.read_text(encoding="utf-8", errors="replace"):
            res[rel.with_suffix("").as_posix()] = arq
    return res


class ErroRazao(Exception):
    """Valores que não podem entrar na razão (ex.: caractere de controle num valor colado)."""

    def __init__(self, problemas):
        self.problemas = problemas
        super().__init__("\n".join(problemas))


def coletar(build: Path, verboso=False, problemas: list | None = None) -> dict:
    """Todas as páginas de um build -> razão {página: {chave: valor}}.

    Entram os notebooks executados (jupyter_execute/) e os widgets do HTML (html/).
    Um valor com caractere de controle é um problema (página · chave): se `problemas` é uma
    lista, eles vão para ela; senão, coletar levanta ErroRazao.
    """
    base = Path(build) / "jupyter_execute"
    if not base.is_dir():
        sys.exit(f"Não achei {base}: rode `make book` antes.")
    razao, achados = {}, []
    for ipynb in sorted(base.rglob("*.ipynb")):
        pagina = ipynb.relative_to(base).with_suffix("").as_posix()
        if pagina == PAGINA_RAZAO or ".ipynb_checkpoints" in ipynb.parts:
            continue
        nb = json.loads(ipynb.read_text(encoding="utf-8"))
        gj = ipynb.with_name(ipynb.stem + ".glue.json")
        glue = json.loads(gj.read_text(encoding="utf-8")) if gj.exists() else {}
        itens, avisos, probs = itens_do_notebook(nb, glue)
        achados += [f"{pagina} · {p}" for p in probs]
        if verboso:
            for a in avisos:
                print(f"  aviso: {pagina} {a}")
        if itens:
            razao[pagina] = itens
    for pagina, arq in _paginas_html(Path(build) / "html").items():
        if pagina == PAGINA_RAZAO:
            continue
        ws, probs = itens_dos_widgets(arq.read_text(encoding="utf-8"))
        achados += [f"{pagina} · {p}" for p in probs]
        razao.setdefault(pagina, {}).update(ws)
    if achados:
        if problemas is None:
            raise ErroRazao(achados)
        problemas += achados
    return {p: dict(sorted(v.items())) for p, v in sorted(razao.items())}


def coletar_resultados(resultados: dict) -> tuple[dict, list]:
    """Os resultados da trava rápida (rapido.executar: por página, o notebook executado, os glue,
    o HTML dos widgets e o erro) -> (razão {página: {chave: valor}}, [problemas])."""
    razao, problemas = {}, []
    for pagina, res in resultados.items():
        if res.get("erro"):
            problemas.append(f"{pagina}: a página não rodou: {res['erro']}")
        itens = {}
        if "nb" in res:
            itens, _, probs = itens_do_notebook(res["nb"], res.get("glue", {}))
            problemas += [f"{pagina} · {p}" for p in probs]
        ws, probs = itens_dos_widgets(res.get("html_widgets", ""))
        problemas += [f"{pagina} · {p}" for p in probs]
        itens.update(ws)
        if itens:
            razao[pagina] = dict(sorted(itens.items()))
    return razao, problemas


# ---------------------------------------------------------------------------
# Comparação
# ---------------------------------------------------------------------------
def serializa(razao: dict) -> str:
    return json.dumps(razao, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


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
                linhas.append(f"- {pag} · {chave}: {curto(a[chave])} (sumiu)")
            elif chave not in a:
                linhas.append(f"+ {pag} · {chave}: {curto(b[chave])} (novo)")
            elif a[chave] != b[chave]:
                la, lb = a[chave].splitlines(), b[chave].splitlines()
                if len(la) == len(lb) > 1:
                    for i, (x, y) in enumerate(zip(la, lb), 1):
                        if x != y:
                            linhas.append(f"~ {pag} · {chave} linha {i}: {curto(x)} → {curto(y)}")
                else:
                    linhas.append(f"~ {pag} · {chave}: {curto(a[chave])} → {curto(b[chave])}")
    return linhas


def ler_lock(lock: Path = LOCK) -> dict:
    if not lock.exists():
        return {}
    return json.loads(lock.read_text(encoding="utf-8"))


def verificar(build: Path, lock: Path = LOCK, parcial=False) -> list[str]:
    """Gera a razão do build e devolve as linhas de diferença (vazia = tudo igual).

    parcial: compara só as páginas que este build executou (um build de poucas páginas).
    """
    problemas = []
    nova = coletar(build, problemas=problemas)
    (Path(build) / NOME).write_text(serializa(nova), encoding="utf-8")
    paginas = None
    if parcial:
        base = Path(build) / "jupyter_execute"
        paginas = {p.relative_to(base).with_suffix("").as_posix() for p in base.rglob("*.ipynb")}
    return ["! " + p for p in problemas] + diferencas(ler_lock(lock), nova, paginas)


# ---------------------------------------------------------------------------
# Linha de comando (o Makefile chama)
# ---------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description="A razão de números do livro.")
    ap.add_argument("acao", choices=["gerar", "verificar"])
    ap.add_argument("build", nargs="?", default="_build", help="a pasta _build do Jupyter Book")
    ap.add_argument("--lock", default=str(LOCK), help="o lock (padrão: book/numeros.lock.json)")
    ap.add_argument("--parcial", action="store_true",
                    help="verificar: só as páginas que este build executou")
    a = ap.parse_args(argv)
    build, lock = Path(a.build), Path(a.lock)
    if a.acao == "gerar":
        problemas = []
        razao = coletar(build, verboso=True, problemas=problemas)
        (build / NOME).write_text(serializa(razao), encoding="utf-8")
        n = sum(len(v) for v in razao.values())
        print(f"Razão: {n} números de {len(razao)} páginas em {build / NOME}")
        if problemas:
            (build / NOME).unlink()      # nada de razão quebrada no _build
            print(f"{len(problemas)} valores não podem entrar na razão:")
            for p in problemas:
                print("  ! " + p)
            return 1
        return 0
    linhas = verificar(build, lock, a.parcial)
    if not linhas:
        print(f"Razão confere com {lock.name}.")
        return 0
    ruins = sum(ln.startswith("! ") for ln in linhas)
    if ruins:
        print(f"{ruins} valores não podem entrar na razão (caractere de controle ou resíduo de arredondamento):")
    if len(linhas) > ruins:
        print(f"{len(linhas) - ruins} números mudaram em relação a {lock}:")
    for ln in linhas:
        print("  " + ln)
    print("Se a mudança é de propósito: `make lock` e revise o diff do lock no commit.")
    return 1


if __name__ == "__main__":
    sys.exit(main())
