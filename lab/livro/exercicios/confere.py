"""Ler a resposta que o leitor digitou e conferi-la com o gabarito de uma versão.

Só a biblioteca padrão (roda no Pyodide). Aceita o que um estudante digitaria: vírgula ou
ponto decimal, espaços, "−" tipográfico, uma porcentagem onde se pede probabilidade, um
vetor com ";" (ou "," quando o decimal é ponto), o token com ou sem "␣", em NFC ou NFD.
Toda entrada ruim vira `Invalida`, com a mensagem em português.
"""
import math

from livro import brinquedo as b
from livro.formato import num

LIMITE = 1e12  # acima disto nenhuma resposta do livro faz sentido (e 1e308 não atrapalha)


class Invalida(ValueError):
    """Uma resposta que não dá para ler (mensagem em português)."""


# Composição NFC à mão das letras acentuadas do português (sem `unicodedata`, que o zip
# enxuto do Pyodide não leva): letra + marca combinante -> letra composta.
_MARCAS = {"\u0300": "grave", "\u0301": "agudo", "\u0302": "circunflexo", "\u0303": "til", "\u0327": "cedilha"}
_COMPOSTAS = {
    "grave": dict(zip("aeiouAEIOU", "àèìòùÀÈÌÒÙ")),
    "agudo": dict(zip("aeiouAEIOU", "áéíóúÁÉÍÓÚ")),
    "circunflexo": dict(zip("aeoAEO", "âêôÂÊÔ")),
    "til": dict(zip("aoAO", "ãõÃÕ")),
    "cedilha": dict(zip("cC", "çÇ")),
}


def nfc(s):
    """As letras acentuadas do português em forma composta (NFD -> NFC)."""
    out = []
    for ch in s:
        marca = _MARCAS.get(ch)
        if marca and out and out[-1] in _COMPOSTAS[marca]:
            out[-1] = _COMPOSTAS[marca][out[-1]]
        else:
            out.append(ch)
    return "".join(out)


def _eco(s):
    """O que o leitor digitou, curto, para citar numa mensagem."""
    return s if len(s) <= 40 else s[:40] + "…"


def _limpa(texto):
    s = nfc("" if texto is None else str(texto)).strip()
    if not s:
        raise Invalida("Digite uma resposta antes de conferir.")
    if len(s) > 200:
        raise Invalida("Resposta longa demais: digite só o valor pedido.")
    return s


def ler_numero(texto, porcentagem=False):
    """'0,395', '0.395', ' 39,5 % ' (se porcentagem) -> float."""
    s = _limpa(texto)
    t = s.replace(" ", "").replace("\u00a0", "").replace("−", "-").replace("–", "-")
    pct = t.endswith("%")
    if pct:
        if not porcentagem:
            raise Invalida(f"«{_eco(s)}»: aqui a resposta não é uma porcentagem; digite só o número.")
        t = t[:-1]
    if "," in t:
        if "." in t or t.count(",") > 1:
            raise Invalida(f"«{_eco(s)}» não é um número: use uma vírgula só (ou um ponto), como em 0,7.")
        t = t.replace(",", ".")
    if not t or any(c not in "0123456789.+-eE" for c in t):
        raise Invalida(f"«{_eco(s)}» não é um número: escreva algo como 0,7.")
    try:
        v = float(t)
    except ValueError:
        raise Invalida(f"«{_eco(s)}» não é um número: escreva algo como 0,7.") from None
    if not math.isfinite(v) or abs(v) > LIMITE:
        raise Invalida(f"«{_eco(s)}» é grande demais: nenhuma resposta deste exercício passa de um trilhão.")
    return v / 100 if pct else v


def ler_vetor(texto, d):
    """'[-0,5; 1,5]', '-0,5 1,5', '(-0.5, 1.5)' -> lista de d floats."""
    s = _limpa(texto)
    t = s.strip("[]() ")
    if ";" in t:
        partes = t.split(";")
    elif ", " in t and len(t.split(", ")) == d:     # '-0,5, 1,5' ou '-0.5, 1.5'
        partes = t.split(", ")
    elif "," in t and "." in t:                      # '-0.5,1.5'
        partes = t.split(",")
    elif len(t.split()) == d:                        # '-0,5 1,5'
        partes = t.split()
    elif "," in t and " " not in t and t.count(",") == d - 1:  # '1,2,3,4': inteiros
        partes = t.split(",")
    elif "," in t:
        raise Invalida(f"«{_eco(s)}»: separe os {d} números com ponto e vírgula, como em [-0,5; 1,5].")
    else:
        partes = t.split()
    partes = [p.strip() for p in partes if p.strip()]
    if len(partes) != d:
        raise Invalida(f"«{_eco(s)}» tem {len(partes)} número(s); o vetor pedido tem {d}, "
                       f"separados por ponto e vírgula, como em [-0,5; 1,5].")
    return [ler_numero(p) for p in partes]


def _chave_token(t):
    return nfc(t).strip().replace(b.ESPACO, "").replace(" ", "").lower()


def ler_token(texto):
    """'␣telhado', ' telhado', 'telhado', 'TELHADO' (NFC ou NFD) -> o id no vocabulário."""
    s = _limpa(texto).strip("\"'«»“”`")
    if s.replace(" ", "").isdigit():
        raise Invalida(f"«{_eco(s)}» é um número: digite o token, como ␣gato (o ␣ é opcional).")
    chave = _chave_token(s)
    achados = [i for i, t in enumerate(b.VOCAB) if _chave_token(t) == chave]
    if not achados:
        raise Invalida(f"«{_eco(s)}» não é um token do vocabulário do brinquedo "
                       f"({', '.join(b.VOCAB)}).")
    return achados[0]


def ler_escolha(texto, opcoes):
    """Uma das opções: o valor do rádio ("a") ou o rótulo digitado ("(a)", " A ")."""
    if texto is None or str(texto).strip() == "":
        raise Invalida("Escolha uma das opções antes de conferir.")
    s = str(texto).strip().strip("()").strip().lower()
    if s not in [v for v, _ in opcoes]:
        raise Invalida("Escolha uma das opções da lista: " + ", ".join(t for _, t in opcoes) + ".")
    return s


def tolerancia(v):
    """A diferença aceita, em palavras, para o enunciado."""
    if v.tipo in ("token", "escolha"):
        return ""
    if v.rel:
        return f"aceita-se uma diferença de até {num(100 * v.rel, 0)}%"
    if v.casas == 0:
        return "a resposta é um inteiro exato"
    return f"com {v.casas} casas decimais; aceita-se uma diferença de até {num(v.tol, v.casas)}"


def perto(v, x, alvo):
    """x está dentro da tolerância de alvo (número ou vetor)?"""
    if isinstance(alvo, list):
        return all(perto(v, a, c) for a, c in zip(x, alvo))
    if v.rel:
        return abs(x - alvo) <= v.rel * abs(alvo)
    return abs(x - alvo) <= v.tol * (1 + 1e-9)


def ler(v, texto):
    """A resposta do leitor lida no tipo da versão v."""
    if v.tipo == "vetor":
        return ler_vetor(texto, len(v.resposta))
    if v.tipo == "token":
        return ler_token(texto)
    if v.tipo == "escolha":
        return ler_escolha(texto, v.opcoes)
    if v.tipo == "inteiro":
        t = _limpa(texto).replace(" ", "")
        # 50.257 e 1.024 são inteiros com ponto de milhar, como o livro os escreve
        if "." in t and all(len(g) == 3 and g.isdigit() for g in t.lstrip("-").split(".")[1:]):
            t = t.replace(".", "")
        x = ler_numero(t)
        if x != int(x):
            raise Invalida(f"«{_eco(_limpa(texto))}»: a resposta é um número inteiro.")
        return int(x)
    x = ler_numero(texto, porcentagem=(v.tipo == "prob"))
    if v.tipo == "prob" and not 0 <= x <= 1:
        raise Invalida("Uma probabilidade fica entre 0 e 1: digite 0,395 ou 39,5%.")
    return x


def conferir(v, texto):
    """-> (veredito, erro típico ou None, valor lido ou None, mensagem de erro de leitura)."""
    try:
        x = ler(v, texto)
    except Invalida as e:
        return "invalido", None, None, str(e)
    if v.tipo in ("token", "escolha", "inteiro"):
        certo = x == v.resposta
    else:
        certo = perto(v, x, v.resposta)
    if certo:
        return "certo", None, x, ""
    for erro in v.erros:
        if (x == erro.valor) if v.tipo in ("token", "escolha", "inteiro") else perto(v, x, erro.valor):
            return "errado", erro, x, ""
    return "errado", None, x, ""
