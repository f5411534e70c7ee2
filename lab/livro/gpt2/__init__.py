"""O laboratório com o GPT-2 small de verdade (torch e transformers).

`from livro.gpt2 import lab as gl` junta tudo num nome só (ver `livro.gpt2.lab`).
"""
