"""A razão de números: todo número que o leitor vê, numa lista só, travada no git.

    python -m livro_ext.trava.razao gerar _build       # escreve _build/numeros.json
    python -m livro_ext.trava.razao verificar _build   # compara com book/numeros.lock.json

O que entra e as chaves: CONTRIBUINDO.md ("Verificar"); o texto de cada valor: razao_texto.py.
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


class ErroRazao(Exception):
    """Valores que não podem entrar na razão (ex.: caractere de controle num valor colado)."""

    def __init__(self, problemas):
        self.problemas = problemas
        super().__init__("\n".join(problemas))


def coletar(build: Path, verboso=False, problemas: list | None = None) -> dict:
    """Os notebooks de jupyter_execute/ e os widgets do html/ de um build -> razão. Um valor que não pode
    entrar (página · chave) vai para `problemas`, se é uma lista; senão, levanta ErroRazao."""
    base = Path(build) / "jupyter_execute"
    if not base.is_dir():
        sys.exit(f"Não achei {base}: rode `make book` antes.")
    resultados = {}
    for ipynb in sorted(base.rglob("*.ipynb")):
        gj = ipynb.with_name(ipynb.stem + ".glue.json")
        resultados[ipynb.relative_to(base).with_suffix("").as_posix()] = {
            "nb": json.loads(ipynb.read_text(encoding="utf-8")),
            "glue": json.loads(gj.read_text(encoding="utf-8")) if gj.exists() else {}}
    html = Path(build) / "html"
    for arq in sorted(html.rglob("*.html")) if html.is_dir() else []:
        rel = arq.relative_to(html)
        texto = arq.read_text(encoding="utf-8", errors="replace")
        if not rel.parts[0].startswith("_") and CLASSE_WIDGET in texto:
            resultados.setdefault(rel.with_suffix("").as_posix(), {})["html_widgets"] = texto
    razao, achados = coletar_resultados(resultados, verboso)
    if achados and problemas is None:
        raise ErroRazao(achados)
    if achados:
        problemas += achados
    return razao


def coletar_resultados(resultados: dict, verboso=False) -> tuple[dict, list]:
    """{página: {"nb", "glue", "html_widgets", "erro"}} (do build ou de rapido.executar)
    -> (razão {página: {chave: valor}}, [problemas]). A página da razão fica de fora."""
    razao, problemas = {}, []
    for pagina, res in sorted(resultados.items()):
        if pagina == PAGINA_RAZAO or ".ipynb_checkpoints" in pagina:
            continue
        if res.get("erro"):
            problemas.append(f"{pagina}: a página não rodou: {res['erro']}")
        itens = {}
        if "nb" in res:
            itens, avisos, probs = itens_do_notebook(res["nb"], res.get("glue", {}))
            problemas += [f"{pagina} · {p}" for p in probs]
            for a in avisos if verboso else []:
                print(f"  aviso: {pagina} {a}")
        ws, probs = itens_dos_widgets(res.get("html_widgets", ""))
        problemas += [f"{pagina} · {p}" for p in probs]
        itens.update(ws)
        if itens:
            razao[pagina] = dict(sorted(itens.items()))
    return razao, problemas


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
    return json.loads(lock.read_text(encoding="utf-8")) if lock.exists() else {}


def verificar(build: Path, lock: Path = LOCK, parcial=False) -> list[str]:
    """Gera a razão do build -> as linhas de diferença (vazia: tudo igual); parcial: só as páginas
    que este build executou."""
    problemas = []
    nova = coletar(build, problemas=problemas)
    (Path(build) / NOME).write_text(serializa(nova), encoding="utf-8")
    base = Path(build) / "jupyter_execute"
    paginas = {p.relative_to(base).with_suffix("").as_posix() for p in base.rglob("*.ipynb")} if parcial else None
    return ["! " + p for p in problemas] + diferencas(ler_lock(lock), nova, paginas)


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
        print(f"Razão: {sum(map(len, razao.values()))} números de {len(razao)} páginas em {build / NOME}")
        if problemas:
            (build / NOME).unlink()      # nada de razão quebrada no _build
            relata(f"{len(problemas)} valores não podem entrar na razão:", ["! " + p for p in problemas])
        return 1 if problemas else 0
    linhas = verificar(build, lock, a.parcial)
    if not linhas:
        print(f"Razão confere com {lock.name}.")
        return 0
    relata(f"{len(linhas)} diferenças em relação a {lock} (!: um valor que não pode entrar na razão):", linhas)
    print("Se a mudança é de propósito: `make lock` e revise o diff do lock no commit.")
    return 1


def relata(titulo: str, linhas: list[str]) -> None:
    print(titulo)
    for ln in linhas:
        print("  " + ln)


if __name__ == "__main__":
    sys.exit(main())
