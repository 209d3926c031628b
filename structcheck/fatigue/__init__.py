"""Durability: fatigue life of every node from one duty cycle's stress-tensor history.

Rainflow counting (ASTM E1049-85) of the normal stress on candidate planes (critical plane) or of the signed
von Mises stress, mean-stress correction (Goodman by default), S-N curves of the shipped materials and the
Eurocode welded detail categories, Palmgren-Miner damage, life and the fatigue safety factor on the stress.
Method, equations and data sources: ``docs/fatigue.md``.
"""
from .counting import Cycles, rainflow_cycles, turning_points
from .criteria import normal_stress, plane_normals, signed_von_mises, stress_norm
from .damage import FatigueResult, fatigue_life, life_from_damage, miner_damage
from .meanstress import MEAN_STRESS_METHODS, equivalent_amplitude
from .details import EC3_CATEGORIES, DetailCategory, DetailStandard, detail_category, parse_detail
from .sn import SNCurve, get_sn_curve, marin_size_factor, marin_surface_factor, material_sn_curve

__all__ = ["Cycles", "DetailCategory", "DetailStandard", "EC3_CATEGORIES", "FatigueResult", "MEAN_STRESS_METHODS",
           "SNCurve", "detail_category", "equivalent_amplitude", "fatigue_life", "get_sn_curve", "life_from_damage",
           "marin_size_factor", "marin_surface_factor", "material_sn_curve", "miner_damage", "normal_stress",
           "parse_detail", "plane_normals", "rainflow_cycles", "signed_von_mises", "stress_norm", "turning_points"]
