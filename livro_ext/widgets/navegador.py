"""Que arquivos do pacote `livro` vão para o navegador (o fecho dos imports de `livro.widgets`, só com a
biblioteca padrão) e para os notebooks baixados (o dos códigos da página, com os dados que os módulos
leem), relativos a lab/ ("livro/api.py"); ver o CONTRIBUINDO.md. `python -m` imprime os do navegador."""
from __future__ import annotations

import sys
from pathlib import Path

import livro

from ..execucao.importacoes import fecho

PACOTE = Path(livro.__file__).resolve().parent     # lab/livro
BASE = PACOTE.parent                                # lab/: os caminhos saem relativos a ela
NOME = "livro"


class ErroNavegador(RuntimeError):
    """Um módulo que vai para o navegador importa o que o Pyodide do livro não tem."""


def _fecho(codigos, inicio=()) -> tuple[dict[str, Path], dict[str, set[str]]]:
    """({módulo de livro: arquivo}, {módulo de fora: {quem o importa}}) dos códigos e dos nomes de `inicio`."""
    modulos, fora = fecho(codigos, BASE, inicio)
    for nome in sorted(fora):
        if nome.split(".")[0] == NOME:
            quem = ", ".join(sorted(fora[nome]))
            raise ErroNavegador(f"{quem} importa {nome}, que não existe no pacote livro (lab/livro/)")
    return modulos, fora


def caminhos(modulos: dict[str, Path]) -> list[str]:
    """Os arquivos dos módulos, relativos a lab/, e os dados do pacote que eles citam pelo nome
    (ex.: livro/dados.py lê "valores_curso.json", que vai junto)."""
    saida = {arq.relative_to(BASE).as_posix() for arq in modulos.values()}
    dados = [p for p in PACOTE.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")
             and "__pycache__" not in p.parts]
    for arq in modulos.values():
        fonte = arq.read_text(encoding="utf-8")
        saida |= {d.relative_to(BASE).as_posix() for d in dados
                  if d.parent == arq.parent and f'"{d.name}"' in fonte}
    return sorted(saida)


def modulos_navegador() -> list[str]:
    """Os arquivos que o navegador recebe; ErroNavegador se algum importa algo de fora da biblioteca padrão."""
    inicio = [f"{NOME}.widgets.{p.stem}".removesuffix(".__init__") for p in (PACOTE / "widgets").glob("*.py")]
    modulos, externos = _fecho((), inicio)
    fora = {m: quem for m, quem in externos.items() if m not in sys.stdlib_module_names and m != "__future__"}
    if fora:
        detalhes = "; ".join(f"{m} (importado por {', '.join(sorted(q))})" for m, q in sorted(fora.items()))
        raise ErroNavegador("os widgets rodam no Pyodide só com a biblioteca padrão e o pacote livro, "
                            f"mas estes módulos vêm de fora: {detalhes}")
    return caminhos(modulos)


def arquivos_do_pacote(codigos: list[str]) -> tuple[list[str], dict[str, set[str]]]:
    """Os arquivos de livro que os códigos de uma página usam (relativos a lab/) e os módulos de
    fora que eles importam ({módulo: quem}), para o notebook baixado."""
    modulos, externos = _fecho(codigos)
    return caminhos(modulos), externos


if __name__ == "__main__":
    print("\n".join(modulos_navegador()))
