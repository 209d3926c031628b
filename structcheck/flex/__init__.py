"""Whole-arm flexible model: links as Craig-Bampton superelements (component mode synthesis) assembled along the
robot's tree at a pose (docs/flex.md)."""
from .assembly import ArmModel, ArmModes, AttachedMass, arm_frequencies, assemble_arm, link_interfaces, reduce_links
from .superelement import Superelement

__all__ = ["ArmModel", "ArmModes", "AttachedMass", "Superelement", "arm_frequencies", "assemble_arm",
           "link_interfaces", "reduce_links"]
