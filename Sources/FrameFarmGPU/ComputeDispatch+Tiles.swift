extension ComputeDispatch {
    /// One item's dispatch: `constants` name the item, and the grid covers `extent` with `tileSize` workgroups.
    init(pipeline: ComputePipeline, constants: PassConstants, extent: (width: Int, height: Int),
         tileSize: (width: Int, height: Int), canvasWindow: Int = 0) {
        self.init(pipeline: pipeline, items: constants,
                  groupCountX: (extent.width + tileSize.width - 1) / tileSize.width,
                  groupCountY: (extent.height + tileSize.height - 1) / tileSize.height, canvasWindow: canvasWindow)
    }
}
