"""Uma lista de quem ensina: a versão de cada aluno, o link da lista e o código de entrega.

Só a biblioteca padrão: roda também no navegador (a página da lista, `book/lista.md`).

- A versão do exercício `id` para a matrícula `m` na lista `L` é a sorteada pela semente
  "lista:L|aluno:m": não depende da ordem da turma nem de quem mais está nela. Ela não é um
  número do campo "Versão" das páginas, que só aceita inteiros: fora da lista, a resolução da
  versão de um aluno não aparece.
- O link leva L, m, os exercícios e se o site confere; uma soma de conferência pega o link
  cortado ou mexido.
- O código de entrega leva L, m, uma soma dos exercícios e cada resposta como foi digitada (nunca
  um veredito: a correção refaz tudo), com uma soma de conferência (CRC-32). Sem compressão: o mesmo
  código em qualquer máquina (a saída de um zlib muda de uma biblioteca para outra).
"""
import base64
import json
import re
import urllib.parse
import zlib

from livro.exercicios.base import EXERCICIOS, PAGINAS, da_pagina
from livro.exercicios.confere import Invalida

PREFIXO = "LIVRO1:"  # o começo de todo código de entrega (1: o formato)
_NOME = re.compile(r"[a-z0-9][a-z0-9._-]{0,39}\Z")
_MATRICULA = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,29}\Z")
_SEMENTE = re.compile(r"lista:([a-z0-9][a-z0-9._-]{0,39})\|aluno:([A-Za-z0-9][A-Za-z0-9._-]{0,29})\Z")
MAX_RESPOSTA = 200
MAX_PONTOS = 100


def _ler(texto, padrao, mensagem):
    s = ("" if texto is None else str(texto)).strip()
    if not padrao.match(s):
        raise Invalida(mensagem.format(s[:40]))
    return s


def ler_nome(texto):
    """O nome da lista (LISTA): 'semana-4'."""
    return _ler(texto, _NOME, "O nome da lista, «{}», precisa ter de 1 a 40 caracteres: letras minúsculas sem "
                "acento, dígitos, ponto, hífen ou sublinhado, como semana-4.")


def ler_matricula(texto):
    """Uma matrícula: letras sem acento, dígitos, ponto, hífen, sublinhado (até 30)."""
    return _ler(texto, _MATRICULA, "A matrícula «{}» precisa ter de 1 a 30 caracteres: letras sem acento, dígitos, "
                "ponto, hífen ou sublinhado.")


def semente(lista, matricula):
    """A semente das versões de um aluno numa lista."""
    return f"lista:{ler_nome(lista)}|aluno:{ler_matricula(matricula)}"


def e_semente_de_lista(s):
    return isinstance(s, str) and _SEMENTE.match(s) is not None


def rotulo_versao(id_, sem):
    """Um nome curto da versão (6 letras e dígitos), o mesmo na lista, no gabarito e no site."""
    return f"{zlib.crc32(f'{id_}|{sem}'.encode()):08X}"[:6]


def escolher(texto):
    """EXERCICIOS=mascaras,bloco-2:3 -> [(id, pontos)], na ordem do livro; vazio: todos, 1 ponto cada.

    Um item é uma página (todos os exercícios dela) ou um id; ':N' dá os pontos de cada um."""
    s = ("" if texto is None else str(texto)).strip()
    pedidos = {}
    for item in [p.strip() for p in s.split(",")] if s else []:
        if not item:
            continue
        alvo, _, pts = item.partition(":")
        alvo = alvo.strip()
        ids = da_pagina(alvo) or ([alvo] if alvo in EXERCICIOS else [])
        if not ids:
            raise Invalida(f"«{alvo[:40]}» não é uma página com exercícios nem um exercício do livro. Páginas: "
                           + ", ".join(p for p in PAGINAS if da_pagina(p)) + "; exercícios: como mascaras-1.")
        pontos = _ler_pontos(pts) if pts else 1
        for i in ids:
            pedidos.setdefault(i, pontos)
    if not s:
        pedidos = {i: 1 for i in EXERCICIOS}
    if not pedidos:
        raise Invalida("Escolha ao menos um exercício (EXERCICIOS=mascaras,bloco-2).")
    return [(i, pedidos[i]) for i in EXERCICIOS if i in pedidos]


def _ler_pontos(t):
    t = t.strip()
    try:
        v = float(t)
    except ValueError:
        v = -1
    if not 0 < v <= MAX_PONTOS or not re.fullmatch(r"\d+(\.\d+)?", t):
        raise Invalida(f"Os pontos de um exercício, «{t[:20]}», são um número de 0 a {MAX_PONTOS} com ponto "
                       "decimal, como bloco-2:1.5.")
    return int(v) if v == int(v) else v


# ---------------------------------------------------------------------------
# O link da lista
# ---------------------------------------------------------------------------
def _soma(texto):
    return f"{zlib.crc32(texto.encode('utf-8')):08x}"


def parametros(lista, matricula, ids, conferir):
    """Os parâmetros do link (na ordem), com a soma de conferência `c`."""
    p = {"lista": ler_nome(lista), "m": ler_matricula(matricula), "ex": ",".join(ids),
         "conferir": "1" if conferir else "0"}
    p["c"] = _soma("|".join(p.values()))
    return p


def link(site, lista, matricula, ids, conferir):
    """O endereço da lista do aluno no site (os valores só têm caracteres seguros numa URL)."""
    p = parametros(lista, matricula, ids, conferir)
    return site.rstrip("/") + "/book/lista.html?" + "&".join(f"{k}={v}" for k, v in p.items())


INCOMPLETO = ("O link da lista está incompleto ou foi alterado. Abra de novo o link que o seu professor mandou "
              "(inteiro, do começo ao fim) ou copie-o da sua lista.")


def ler_link(texto):
    """A consulta do link ('?lista=…&m=…') -> {"lista", "m", "ids", "conferir"}; senão Invalida."""
    s = ("" if texto is None else str(texto)).strip()
    if "?" in s:
        s = s.split("?", 1)[1]
    s = s.split("#", 1)[0]
    if not s:
        raise Invalida("Esta página abre a lista de exercícios que o seu professor mandou: use o link da sua "
                       "lista (ele traz o nome da lista e a sua matrícula).")
    p = {k: v[-1] for k, v in urllib.parse.parse_qs(s, keep_blank_values=True).items()}
    if any(k not in p for k in ("lista", "m", "ex", "conferir", "c")):
        raise Invalida(INCOMPLETO)
    try:
        esperado = parametros(p["lista"], p["m"], p["ex"].split(","), p["conferir"] == "1")
    except Invalida:
        raise Invalida(INCOMPLETO) from None
    if p["conferir"] not in ("0", "1") or esperado["c"] != p["c"].strip().lower():
        raise Invalida(INCOMPLETO)
    ids = p["ex"].split(",")
    faltam = [i for i in ids if i not in EXERCICIOS]
    if faltam:
        raise Invalida(f"Esta lista pede exercícios que esta edição do livro não tem ({', '.join(faltam)[:80]}). "
                       "Avise o seu professor.")
    return {"lista": esperado["lista"], "m": esperado["m"], "ids": ids, "conferir": p["conferir"] == "1"}


# ---------------------------------------------------------------------------
# O código de entrega
# ---------------------------------------------------------------------------
def soma_dos_exercicios(ids):
    """8 letras que identificam a lista de exercícios (o código leva só elas, não os ids)."""
    return _soma(",".join(ids))


def codigo(lista, matricula, ids, respostas):
    """O código de entrega: PREFIXO + base64url(CRC-32 + JSON), sem compressão (os mesmos bytes em
    qualquer máquina). O JSON leva a lista, a matrícula, a soma dos exercícios e as respostas, na ordem."""
    r = ["" if respostas.get(i) is None else str(respostas.get(i)).strip()[:MAX_RESPOSTA] for i in ids]
    dados = json.dumps({"l": ler_nome(lista), "m": ler_matricula(matricula), "e": soma_dos_exercicios(ids), "r": r},
                       ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    corpo = zlib.crc32(dados).to_bytes(4, "big") + dados
    return PREFIXO + base64.urlsafe_b64encode(corpo).decode("ascii").rstrip("=")


CORROMPIDO = "o código está incompleto ou tem um caractere trocado (a soma de conferência não bate)"
OUTROS = "o código é de uma lista com outros exercícios (a lista mudou depois do link?)"


def ler_codigo(texto, ids=None):
    """Um código de entrega -> {"lista", "m", "soma", "respostas"}; com ids, as respostas por exercício
    (e Invalida se o código é de outra escolha de exercícios). Senão Invalida (em português)."""
    s = "" if texto is None else str(texto)
    i = s.find(PREFIXO)
    if i < 0:
        raise Invalida(f"não é um código de entrega do livro (um código começa com {PREFIXO})")
    corpo = re.sub(r"\s+", "", s[i + len(PREFIXO):])
    if not corpo or not re.fullmatch(r"[A-Za-z0-9_-]+", corpo):
        raise Invalida(CORROMPIDO)
    try:
        b = base64.urlsafe_b64decode(corpo + "=" * (-len(corpo) % 4))
        if len(b) < 6 or int.from_bytes(b[:4], "big") != zlib.crc32(b[4:]):
            raise ValueError
        d = json.loads(b[4:].decode("utf-8"))
        lista, m, soma, r = d["l"], d["m"], d["e"], d["r"]
        if not (isinstance(r, list) and isinstance(soma, str) and all(isinstance(x, str) for x in r)):
            raise ValueError
        lista, m = ler_nome(lista), ler_matricula(m)
    except (ValueError, KeyError, TypeError, Invalida):
        raise Invalida(CORROMPIDO) from None
    if ids is not None:
        if soma != soma_dos_exercicios(ids) or len(r) != len(ids):
            raise Invalida(OUTROS)
        r = dict(zip(ids, r))
    return {"lista": lista, "m": m, "soma": soma, "respostas": r}


def achar_codigos(texto):
    """Os códigos de entrega dentro de um texto (uma linha, uma célula de CSV), sem os espaços e as
    quebras de linha que um e-mail ou um campo de texto põem no meio."""
    partes = re.sub(r"\s+", "", texto or "").split(PREFIXO)[1:]
    return [PREFIXO + re.match(r"[A-Za-z0-9_-]*", p).group(0) for p in partes]
