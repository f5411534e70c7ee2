"""Que arquivos do pacote `livro` saem do build: para o navegador e para os notebooks baixados.

Nenhuma lista à mão: tudo sai dos imports, lidos com `ast` (sem rodar nada).

- `modulos_navegador()`: o que o Pyodide recebe, o fecho de imports de todo módulo de
  `livro.widgets`. Só pode ter a biblioteca padrão e módulos de `livro`: um widget que
  importe numpy (ou um módulo de `livro` que o importe) para o build com uma mensagem
  que diz quem importou o quê.
- `arquivos_do_pacote(codigos)`: o que um notebook baixado precisa para rodar sozinho, o
  fecho dos imports de `livro` nos códigos da página, com os dados que esses módulos leem.

Os caminhos são relativos à pasta que contém o pacote (lab/), como no site-packages:
"livro/__init__.py", "livro/widgets/api.py".

    python -m livro_ext.widgets.navegador     # imprime os arquivos do navegador
"""
from __future__ import annotations

import functools
import sys
from pathlib import Path

import livro

from ..execucao.importacoes import importados

PACOTE = Path(livro.__file__).resolve().parent     # lab/livro
BASE = PACOTE.parent                                # lab/: os caminhos saem relativos a ela
NOME = "livro"
WIDGETS = "livro.widgets"


class ErroNavegador(RuntimeError):
    """Um módulo que vai para o navegador importa o que o Pyodide do livro não tem."""


def arquivo_do_modulo(nome: str) -> Path | None:
    """'livro.widgets.api' -> lab/livro/widgets/api.py ('livro.widgets' -> .../__init__.py)."""
    partes = nome.split(".")
    if partes[0] != NOME:
        return None
    caminho = BASE.joinpath(*partes)
    if (caminho / "__init__.py").is_file():
        return caminho / "__init__.py"
    if caminho.with_suffix(".py").is_file():
        return caminho.with_suffix(".py")
    return None


def nome_do_arquivo(arquivo: Path) -> str:
    """lab/livro/widgets/api.py -> 'livro.widgets.api'."""
    partes = list(arquivo.resolve().relative_to(BASE).with_suffix("").parts)
    if partes[-1] == "__init__":
        partes.pop()
    return ".".join(partes)


def imports(codigo: str, modulo: str | None = None) -> set[str]:
    """Os módulos que um código importa, com o nome completo.

    `from livro import brinquedo` conta 'livro' e 'livro.brinquedo' (se for um módulo);
    imports relativos se resolvem a partir de `modulo` (o nome de quem importa).
    Guardado pelo texto (e pela pasta do pacote): cada página de novo percorre os mesmos
    módulos de livro, e ler cada um com `ast` de novo custava ~1 s de CPU por build."""
    return set(_imports(codigo, modulo, BASE))


@functools.lru_cache(maxsize=None)
def _imports(codigo: str, modulo: str | None, _base: Path) -> frozenset[str]:
    nomes = set()
    pacote = None
    if modulo:
        e_pacote = (arquivo_do_modulo(modulo) or Path()).name == "__init__.py"
        pacote = modulo if e_pacote else modulo.rpartition(".")[0]
    modulos, talvez = importados(codigo, pacote or "")
    nomes = set(modulos) | {sub for sub in talvez if arquivo_do_modulo(sub)}
    return frozenset(n for n in nomes if n)


def fecho(inicio: set[str], codigos=()) -> tuple[dict[str, Path], dict[str, set[str]]]:
    """Os módulos de `livro` alcançados a partir de `inicio` (nomes) e dos `codigos`.

    -> ({módulo: arquivo}, {módulo de fora de livro: {quem o importa}}). Cada pacote
    pai entra junto (o __init__.py de livro e dos subpacotes)."""
    achados: dict[str, Path] = {}
    externos: dict[str, set[str]] = {}
    fila = [(n, "a página") for n in inicio]
    for c in codigos:
        fila += [(n, "a página") for n in imports(c)]
    while fila:
        nome, quem = fila.pop()
        partes = nome.split(".")
        if partes[0] != NOME:
            externos.setdefault(partes[0], set()).add(quem)
            continue
        for k in range(1, len(partes) + 1):
            sub = ".".join(partes[:k])
            if sub in achados:
                continue
            arq = arquivo_do_modulo(sub)
            if arq is None:
                raise ErroNavegador(f"{quem} importa {sub}, que não existe no pacote livro (lab/livro/)")
            achados[sub] = arq
            fila += [(n, sub) for n in imports(arq.read_text(encoding="utf-8"), sub)]
    return dict(sorted(achados.items())), externos


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
    """Os arquivos que o navegador recebe: o fecho de imports de todo módulo de livro.widgets.

    Levanta ErroNavegador se algum deles importa algo de fora da biblioteca padrão."""
    pasta = arquivo_do_modulo(WIDGETS).parent
    inicio = {nome_do_arquivo(p) for p in pasta.glob("*.py")}
    modulos, externos = fecho(inicio)
    fora = {m: quem for m, quem in externos.items() if m not in sys.stdlib_module_names and m != "__future__"}
    if fora:
        detalhes = "; ".join(f"{m} (importado por {', '.join(sorted(q))})" for m, q in sorted(fora.items()))
        raise ErroNavegador("os widgets rodam no Pyodide só com a biblioteca padrão e o pacote livro, "
                            f"mas estes módulos vêm de fora: {detalhes}")
    return caminhos(modulos)


def arquivos_do_pacote(codigos: list[str]) -> tuple[list[str], dict[str, set[str]]]:
    """Os arquivos de livro que os códigos de uma página usam (relativos a lab/) e os módulos de
    fora que eles importam ({módulo: quem}), para o notebook baixado."""
    modulos, externos = fecho(set(), codigos)
    return caminhos(modulos), externos


if __name__ == "__main__":
    print("\n".join(modulos_navegador()))
